import pino, { type Logger, type DestinationStream } from 'pino';
import { serializeRequest } from './log-redaction.js';

// Secrets must never reach a log line, whatever object a caller happens to log.
export const REDACT_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-injection-token"]',
  'headers.authorization', 'headers.cookie', 'headers["x-injection-token"]', 'res.headers["set-cookie"]',
  'password', 'secret', 'key', 'token', 'apiKey', 'sip_password',
  '*.password', '*.secret', '*.key', '*.token', '*.apiKey', '*.sip_password', '*.credential',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  // The req serializer replaces fastify's (which logs the URL with its query string as sent).
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, serializers: { req: serializeRequest } }, destination);
}

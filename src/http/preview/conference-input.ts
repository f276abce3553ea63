// Reading /v1/conferences write bodies: form-encoded (as the spec sends them) or JSON, with `true`/`false` flags
// either way; every bad value is a 400 naming its param.
import type { FastifyInstance } from 'fastify';
import { previewErrors } from '../errors.js';

/** Form bodies parse to plain string maps; the last of repeated keys wins. */
export function acceptFormBodies(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}

export function flag(value: boolean | string | undefined, param: string): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw previewErrors.parameterInvalid(param, `The ${param} parameter must be true or false, got ${JSON.stringify(value)}.`);
}

export const CALL_SID = /^CA[0-9a-f]{32}$/;
export const CONFERENCE_SID = /^CF[0-9a-f]{32}$/;

import { Agent } from 'undici';
import type { Readable } from 'node:stream';
import { checkTargetUrl } from './url-policy.js';
import { createGuardedConnector, type GuardedConnectorOptions } from './guarded-connector.js';
import { captureRemoteAddress } from './remote-address.js';
import {
  OutboundError,
  ResponseTooLargeError,
  TargetRefusedError,
  TargetTimeoutError,
  TargetUnreachableError,
} from './errors.js';

export type { Resolver, ResolvedAddress } from './guarded-connector.js';

export interface GuardedClientOptions extends GuardedConnectorOptions {
  /** Refuse plain-http targets (loopback in allowLoopback mode excepted). Default true. */
  requireHttps?: boolean;
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Budget for the whole exchange: resolve, connect, send, and read the full body. Default 5000. */
  timeoutMs?: number;
  /** Default 1 MiB; larger responses fail rather than being truncated silently. */
  maxResponseBytes?: number;
  /** The organisation's host allow-list; omitted means no allow-list applies. */
  allowHosts?: readonly string[];
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
  latencyMs: number;
  /** Peer address the request was written to; null if it could not be observed. */
  remoteAddress: string | null;
}

export interface GuardedClient {
  request(url: string, init?: OutboundRequest): Promise<OutboundResponse>;
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
const UNDICI_TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * The only way the platform should talk to customer URLs. Redirects are never followed (a 3xx
 * comes back to the caller as-is): following one would let an approved host bounce us anywhere.
 */
export function createGuardedClient(opts: GuardedClientOptions): GuardedClient {
  // One Agent per client so keep-alive connections are pooled across deliveries.
  const agent = new Agent({ connect: createGuardedConnector(opts) });
  const requireHttps = opts.requireHttps ?? true;

  async function request(rawUrl: string, init: OutboundRequest = {}): Promise<OutboundResponse> {
    const check = checkTargetUrl(rawUrl, { requireHttps, allowLoopback: opts.allowLoopback, allowHosts: init.allowHosts });
    if (!check.ok) throw new TargetRefusedError(check.code, check.reason);
    const { url } = check;
    const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TargetTimeoutError(timeoutMs)), timeoutMs);
    const started = performance.now();
    try {
      const { result, capture } = captureRemoteAddress(() =>
        agent.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: (init.method ?? 'GET').toUpperCase(),
          headers: init.headers,
          body: init.body,
          signal: controller.signal,
        }),
      );
      const response = await result;
      const body = await readCapped(response.body, init.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
      return {
        status: response.statusCode,
        headers: definedHeaders(response.headers),
        body,
        latencyMs: performance.now() - started,
        remoteAddress: capture.remoteAddress,
      };
    } catch (err) {
      throw toOutboundError(err, controller.signal.aborted, timeoutMs);
    } finally {
      clearTimeout(timer);
    }
  }

  return { request, close: () => agent.close() };
}

async function readCapped(body: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  // Leaving the loop early (throw) destroys the stream, which also drops the connection.
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > limit) throw new ResponseTooLargeError(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, total);
}

function definedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
}

/** Policy refusals raised deep inside the connector may arrive wrapped; surface them unchanged. */
function toOutboundError(err: unknown, timedOut: boolean, timeoutMs: number): OutboundError {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof OutboundError) return e;
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (timedOut || (typeof code === 'string' && UNDICI_TIMEOUT_CODES.has(code))) {
    return new TargetTimeoutError(timeoutMs, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new TargetUnreachableError(`request failed: ${message}`, { cause: err });
}

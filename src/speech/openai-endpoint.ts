// One request to an account's OpenAI-compatible endpoint (transcriptions, speech): through the guarded client (the
// one target policy), within a time limit, the key as a bearer token and never logged. A failure comes back as the
// caller's own error type, by reason: `timeout`, `unavailable` (refused by the target policy), `refused` (no answer
// or an error status).
import { TargetRefusedError, TargetTimeoutError, type GuardedClient } from '../net/index.js';

export interface OpenAiEndpoint {
  /** Up to the API version, as OpenAI's clients take it: `https://api.openai.com/v1`. */
  baseUrl: string;
  /** The model the endpoint runs (`whisper-1`, `tts-1`, or what a local server loaded). */
  model: string;
  /** Null for a local server that asks for none. */
  apiKey: string | null;
}

export type EndpointFailure = 'unavailable' | 'timeout' | 'refused';

export interface EndpointRequest {
  /** After the base URL: `/audio/speech`. */
  path: string;
  contentType: string;
  body: Buffer;
  timeoutMs: number;
  maxResponseBytes: number;
}

/** The 2xx answer's headers and body; rejects with `fail(...)` otherwise. `what` names the endpoint in messages. */
export async function postToEndpoint(
  client: GuardedClient, endpoint: OpenAiEndpoint, req: EndpointRequest, what: string,
  fail: (reason: EndpointFailure, message: string) => Error,
): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  let res: Awaited<ReturnType<GuardedClient['request']>>;
  try {
    res = await client.request(`${endpoint.baseUrl.replace(/\/+$/, '')}${req.path}`, {
      method: 'POST',
      headers: { 'content-type': req.contentType, ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}) },
      body: req.body, timeoutMs: req.timeoutMs, maxResponseBytes: req.maxResponseBytes,
    });
  } catch (err) {
    if (err instanceof TargetTimeoutError) throw fail('timeout', `the ${what} endpoint did not answer within ${Math.round(req.timeoutMs / 1000)} s`);
    if (err instanceof TargetRefusedError) throw fail('unavailable', `the ${what} endpoint is refused: ${err.message}`);
    throw fail('refused', `the ${what} endpoint could not be reached: ${(err as Error).message}`);
  }
  if (res.status < 200 || res.status > 299) throw fail('refused', `the ${what} endpoint answered ${res.status}`);
  return { headers: res.headers, body: res.body };
}

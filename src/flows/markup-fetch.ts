import { parseMarkup, MarkupError, type MarkupFormat, type Verb, type VoiceBook } from '../markup/index.js';
import { OutboundError } from '../net/index.js';
import type { CustomerHttp, CustomerPayload } from '../calls/customer-http.js';

export const WEBHOOK_REPLY_BUDGET_MS = 5_000;
export const CALL_SID_HEADER = 'X-CPaaS-Call-Sid';

export type MarkupFetchResult =
  | { ok: true; verbs: Verb[]; url: string }
  /** `unavailable`: the URL did not answer (connection error, timeout) or answered 5xx, the cases a fallback URL is for. */
  | { ok: false; reason: string; unavailable: boolean };

export interface MarkupFetchRequest {
  accountId: number;
  callSid: string;
  url: string;
  method: 'POST' | 'GET';
  payload: CustomerPayload;
  format: MarkupFormat;
  /** Where the caller's time budget ends (clock ms); the request never waits past it. */
  timeoutMs?: number;
  /** The voices the account's documents may name (read while the request is out). */
  voices: () => Promise<VoiceBook>;
}

export type Timeline = (kind: string, detail: Record<string, unknown>) => void;

/** Asks an account's URL for markup and parses it; every failure becomes a reason, never an exception. */
export async function fetchMarkup(http: CustomerHttp, req: MarkupFetchRequest, timeline: Timeline): Promise<MarkupFetchResult> {
  timeline('webhook-request', { url: req.url, method: req.method });
  const voices = req.voices().then((book) => ({ ok: true as const, book }), (err: Error) => ({ ok: false as const, reason: err.message }));
  let status: number;
  let body: string;
  try {
    const res = await http.send({
      accountId: req.accountId, url: req.url, method: req.method, payload: req.payload,
      headers: { [CALL_SID_HEADER]: req.callSid, accept: req.format === 'json' ? 'application/json' : 'application/xml, text/xml' },
      timeoutMs: req.timeoutMs ?? WEBHOOK_REPLY_BUDGET_MS,
    });
    status = res.status;
    body = res.body.toString('utf8');
    timeline('webhook-reply', { url: req.url, status, latency_ms: Math.round(res.latencyMs), bytes: res.body.length });
  } catch (err) {
    const reason = err instanceof OutboundError ? `${err.code}: ${err.message}` : `request failed: ${(err as Error).message}`;
    timeline('webhook-reply', { url: req.url, error: reason });
    return { ok: false, reason, unavailable: true };
  }
  if (status < 200 || status >= 300) return { ok: false, reason: `webhook answered HTTP ${status}`, unavailable: status >= 500 };
  const book = await voices;
  if (!book.ok) return { ok: false, reason: `the account's voices could not be read: ${book.reason}`, unavailable: false };
  try {
    return { ok: true, verbs: parseMarkup(body, req.format, { voices: book.book }), url: req.url };
  } catch (err) {
    if (err instanceof MarkupError) {
      timeline('markup-error', { url: req.url, issues: err.issues });
      return { ok: false, reason: `invalid markup: ${err.message}`, unavailable: false };
    }
    throw err;
  }
}

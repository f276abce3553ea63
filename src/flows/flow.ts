import type { MarkupFormat, Verb } from '../markup/index.js';
import type { CallSession } from '../calls/session.js';
import type { FlowServices } from './services.js';
import { fetchMarkup, type MarkupFetchResult } from './markup-fetch.js';
import type { CustomerPayload } from '../calls/customer-http.js';
import { PLATFORM_VOICE } from '../calls/platform-voice.js';

/** What a verb decides: go on with the next verb, run a new document, or stop. */
export type Outcome = { kind: 'next' } | { kind: 'goto'; verbs: Verb[]; url: string } | { kind: 'end' };

/** Where the platform asks for a document: a number's or trunk's webhook, a fallback. */
export interface WebhookTarget { url: string; method: 'POST' | 'GET' }

/** The state a document runs in: its services, its call and the URL relative action URLs resolve against. */
export interface Flow {
  /** The call's services with the feature services verbs use (the same object as session.services, more of it). */
  services: FlowServices;
  session: CallSession;
  docUrl: string | null;
  format: MarkupFormat;
  /**
   * The number's or trunk's fallback URL: asked once, with the same parameters and what went wrong, whenever a
   * document request of this call finds its URL unavailable (the first webhook and every action URL alike).
   */
  fallback?: WebhookTarget | null;
  /**
   * The number's or trunk's transfer URL: asked when one side of a bridged <Dial> asks for a blind transfer (SIP
   * REFER); without it such transfers are declined (src/flows/transfers.ts).
   */
  referTo?: WebhookTarget | null;
}

export const APPLICATION_ERROR_MESSAGE = 'Sorry, an application error occurred. Goodbye.';

export function resolveUrl(flow: Flow, ref: string): string | null {
  try {
    return new URL(ref, flow.docUrl ?? undefined).toString();
  } catch {
    return null;
  }
}

/**
 * Requests the next document from the account's URL (the first webhook; a Gather/Record/Dial action, a Redirect).
 * When that URL is unavailable and the flow has a fallback URL, the fallback is asked once, with `error_url` and
 * `error_reason` added (Twilio's FallbackUrl gets ErrorUrl and ErrorCode); the timeline says which answered.
 */
export async function requestDocument(flow: Flow, url: string, method: 'POST' | 'GET', body: Record<string, unknown>): Promise<MarkupFetchResult> {
  const first = await fetchDocument(flow, { url, method }, body);
  if (first.ok || !first.unavailable || !flow.fallback) return first;
  flow.session.timeline('webhook-fallback', { url: flow.fallback.url, error_url: url, error_reason: first.reason });
  const second = await fetchDocument(flow, flow.fallback, { ...body, error_url: url, error_reason: first.reason });
  return second.ok ? second : { ...second, reason: `${first.reason}; fallback: ${second.reason}` };
}

function fetchDocument(flow: Flow, target: WebhookTarget, body: Record<string, unknown>): Promise<MarkupFetchResult> {
  const { session } = flow;
  const payload: CustomerPayload = { kind: 'json', body };
  return fetchMarkup(session.services.http, {
    accountId: session.accountId, callSid: session.sid, url: target.url, method: target.method, payload, format: flow.format,
    voices: () => session.services.voices.book(session.accountId),
  }, (kind, detail) => session.timeline(kind, detail));
}

/** The caller hears a short apology and the call ends: the one response to every application failure. */
export async function failCall(flow: Flow, reason: string): Promise<Outcome> {
  const { session } = flow;
  session.timeline('application-error', { reason });
  session.log.info({ reason }, 'application error; ending the call');
  if (session.ended) return { kind: 'end' };
  const leg = await session.answer();
  await leg.say(APPLICATION_ERROR_MESSAGE, PLATFORM_VOICE);
  await session.hangup('application-error');
  return { kind: 'end' };
}

/**
 * After a verb: its action URL (`ref`, relative to the document) is asked for the next document, which runs; with
 * no action the document goes on. Nothing is asked once the call has ended or a redirect replaced the document.
 */
export async function followAction(flow: Flow, what: string, ref: string | null | undefined, method: 'POST' | 'GET', body: Record<string, unknown>): Promise<Outcome> {
  if (!ref || flow.session.ended || flow.session.document.signal.aborted) return { kind: 'next' };
  const url = resolveUrl(flow, ref);
  if (!url) return failCall(flow, `${what} "${ref}" is not a URL`);
  return gotoOrFail(flow, await requestDocument(flow, url, method, body));
}

export async function gotoOrFail(flow: Flow, result: MarkupFetchResult): Promise<Outcome> {
  return result.ok ? { kind: 'goto', verbs: result.verbs, url: result.url } : failCall(flow, result.reason);
}

import type { MarkupFormat, Verb } from '../markup/index.js';
import type { CallSession } from './session.js';
import { fetchMarkup, type MarkupFetchResult } from './markup-fetch.js';
import type { CustomerPayload } from './customer-http.js';
import { PLATFORM_VOICE } from './platform-voice.js';

/** What a verb decides: go on with the next verb, run a new document, or stop. */
export type Outcome = { kind: 'next' } | { kind: 'goto'; verbs: Verb[]; url: string } | { kind: 'end' };

/** The state a document runs in: its call and the URL relative action URLs resolve against. */
export interface Flow {
  session: CallSession;
  docUrl: string | null;
  format: MarkupFormat;
}

export const APPLICATION_ERROR_MESSAGE = 'Sorry, an application error occurred. Goodbye.';

export function resolveUrl(flow: Flow, ref: string): string | null {
  try {
    return new URL(ref, flow.docUrl ?? undefined).toString();
  } catch {
    return null;
  }
}

/** Requests the next document from the account's URL on behalf of a verb (Gather/Record/Dial action, Redirect). */
export function requestDocument(flow: Flow, url: string, method: 'POST' | 'GET', body: Record<string, unknown>): Promise<MarkupFetchResult> {
  const { session } = flow;
  const payload: CustomerPayload = { kind: 'json', body };
  return fetchMarkup(session.services.http, {
    accountId: session.accountId, callSid: session.sid, url, method, payload, format: flow.format,
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

export async function gotoOrFail(flow: Flow, result: MarkupFetchResult): Promise<Outcome> {
  return result.ok ? { kind: 'goto', verbs: result.verbs, url: result.url } : failCall(flow, result.reason);
}

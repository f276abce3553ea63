// Redirecting a live call at a REST client's request (POST /api/calls/{sid} with url or markup, Twilio's "update a
// call" with Url or Twiml): the new document is had first, then replaces the running one, whose verb stops.
import type { Verb } from '../markup/index.js';
import type { CallRecord } from '../store/calls.js';
import type { FlowServices } from './services.js';
import { requestDocument } from './flow.js';
import type { CallSession } from '../calls/session.js';

export type RedirectRequest = { kind: 'url'; url: string; method: 'POST' | 'GET' } | { kind: 'markup'; verbs: Verb[] };
export type RedirectRefusal = 'call_ended' | 'call_not_carried_here' | 'call_not_running_markup';

export type RedirectResult =
  | { ok: true }
  | { ok: false; refusal: RedirectRefusal }
  /** The URL gave no document (its reason); the call goes on as it was. */
  | { ok: false; unavailable: string };

/** Why `session` cannot take a redirect now, or null: asked again after the new document's request, which takes time. */
const refusalOf = (session: CallSession): RedirectRefusal | null =>
  session.ended ? 'call_ended' : session.document.running ? null : 'call_not_running_markup';

/**
 * Markup runs on a call from its first document request until its last verb: an outbound call still ringing, a
 * dialled or agent leg (bridged, no markup of its own) and a call whose markup has finished cannot be redirected.
 */
export async function redirectByRequest(services: FlowServices, call: CallRecord, req: RedirectRequest): Promise<RedirectResult> {
  if (call.endedAt) return { ok: false, refusal: 'call_ended' };
  const session = services.watch.live(call.sid);
  if (!session) return { ok: false, refusal: 'call_not_carried_here' };
  const refusal = refusalOf(session);
  if (refusal) return { ok: false, refusal };
  if (req.kind === 'markup') {
    await session.redirect({ verbs: req.verbs, url: null }, { markup: true });
    return { ok: true };
  }
  // Asked as the call's own document requests are (signed, through the target policy), with no fallback: the
  // REST client hears at once that its URL failed, and the call goes on.
  const got = await requestDocument({ services, session, docUrl: null, format: 'xml' }, req.url, req.method, {
    from: call.from, to: call.to, direction: call.direction, call_sid: call.sid,
  });
  if (!got.ok) return { ok: false, unavailable: got.reason };
  const late = refusalOf(session);
  if (late) return { ok: false, refusal: late };
  await session.redirect({ verbs: got.verbs, url: got.url }, { url: req.url });
  return { ok: true };
}

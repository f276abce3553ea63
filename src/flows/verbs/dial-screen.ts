// A dialled party's screening (<Number url>, <Sip url>, <Client url>, Twilio's): once the party answers, a
// document of the account's runs on the party's leg alone (a whisper, "press 1 to take the call"); the caller keeps
// hearing ringback. The party is accepted if the document runs to its end with the party still there; a <Hangup>
// (or <Reject>) in it, or no document, declines the party.
import type { Verb } from '../../markup/index.js';
import { requestDocument, resolveUrl, type Flow } from '../flow.js';
import type { CallSession } from '../../calls/session.js';

export type RunMarkup = (flow: Flow, verbs: Verb[], opts: { keepCall?: boolean }) => Promise<void>;

export async function screenParty(caller: Flow, party: CallSession, doc: { url: string; method: 'POST' | 'GET' }, run: RunMarkup): Promise<boolean> {
  const url = resolveUrl(caller, doc.url);
  if (!url) {
    party.timeline('screening-failed', { reason: `url "${doc.url}" is not a URL` });
    return false;
  }
  party.timeline('screening', { url });
  // The party's own flow: its relative URLs resolve against its documents, and it has no fallback.
  const screening: Flow = { services: caller.services, session: party, docUrl: null, format: caller.format };
  const got = await requestDocument(screening, url, doc.method, {
    call_sid: party.sid, parent_call_sid: caller.session.sid, from: party.call.from, to: party.call.to, direction: 'outbound-dial',
  });
  if (!got.ok) {
    party.timeline('screening-failed', { reason: got.reason });
    return false;
  }
  screening.docUrl = got.url;
  await run(screening, got.verbs, { keepCall: true });
  return !party.ended;
}

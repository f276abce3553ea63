import type { Verb } from '../markup/index.js';
import { failCall, requestDocument, type Flow, type Outcome } from './flow.js';
import { sayVerb, playVerb, pauseVerb } from './verbs/media.js';
import { gatherVerb } from './verbs/gather.js';
import { redirectVerb } from './verbs/redirect.js';
import { hangupVerb, rejectVerb } from './verbs/hangup.js';
import { recordVerb } from './verbs/record.js';
import { dialVerb } from './verbs/dial.js';
import { enqueueVerb } from './verbs/enqueue.js';
import { connectVerb, startVerb, stopVerb } from './verbs/stream.js';
import { referVerb } from './verbs/refer.js';
import { leaveVerb } from './verbs/leave.js';

type Handlers = { [V in Verb as V['verb']]: (flow: Flow, verb: V) => Promise<Outcome> };

const handlers: Handlers = {
  say: sayVerb, play: playVerb, pause: pauseVerb, gather: gatherVerb, redirect: redirectVerb,
  // A Dial runs its parties' screening documents with this interpreter (passed in: the verbs do not import it).
  hangup: hangupVerb, reject: rejectVerb, record: recordVerb, dial: (flow, verb) => dialVerb(flow, verb, runMarkup), enqueue: enqueueVerb,
  connect: connectVerb, start: startVerb, stop: stopVerb, refer: referVerb, leave: leaveVerb,
};

// A document that redirects to itself forever must not hold a call (and our CPU) hostage.
const MAX_DOCUMENTS = 50;
const MAX_VERBS = 2_000;

/**
 * Runs verbs in order; a verb may swap in a new document, and so may a REST client's redirect (session.document),
 * which stops the verb under way. When the document runs out, the call ends, unless `keepCall` (a dialled party's
 * screening: the party is connected to the caller next).
 */
export async function runMarkup(flow: Flow, verbs: Verb[], opts: { keepCall?: boolean } = {}): Promise<void> {
  const { session } = flow;
  session.document.started();
  let queue = verbs;
  let documents = 1;
  let executed = 0;
  const overDocumentCap = () => {
    if (++documents <= MAX_DOCUMENTS) return false;
    session.timeline('application-error', { reason: `more than ${MAX_DOCUMENTS} documents in one call` });
    return true;
  };
  for (let i = 0; !session.ended; ) {
    const next = session.document.take();
    if (next) {
      if (overDocumentCap()) break;
      queue = next.verbs;
      if (next.url) flow.docUrl = next.url;
      i = 0;
    }
    const verb = queue[i];
    if (!verb || ++executed > MAX_VERBS) break;
    session.timeline('verb', { verb: verb.verb });
    const outcome = await (handlers[verb.verb] as (f: Flow, v: Verb) => Promise<Outcome>)(flow, verb);
    if (session.document.signal.aborted) continue;
    if (outcome.kind === 'end') break;
    if (outcome.kind === 'goto') {
      if (overDocumentCap()) break;
      queue = outcome.verbs;
      flow.docUrl = outcome.url;
      i = 0;
    } else {
      i++;
    }
  }
  session.document.finished();
  if (!session.ended && !opts.keepCall) await session.hangup('markup-finished');
}

/** Asks a URL for the call's document and runs it; any failure to get one ends the call with the apology. */
export async function fetchAndRun(flow: Flow, url: string, method: 'POST' | 'GET', body: Record<string, unknown>): Promise<void> {
  flow.session.prepareAnswer();
  // A redirect may come while the first document is being fetched: it runs instead.
  flow.session.document.started();
  const result = await requestDocument(flow, url, method, body);
  if (!result.ok && !flow.session.document.signal.aborted) {
    flow.session.document.finished();
    await failCall(flow, result.reason);
    return;
  }
  if (result.ok) flow.docUrl = result.url;
  await runMarkup(flow, result.ok ? result.verbs : []);
}

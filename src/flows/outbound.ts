// A call placed to run markup (POST /api/calls): the kernel dials it (src/calls/outbound.ts), and once answered
// its document runs here.
import type { MarkupFormat, Verb } from '../markup/index.js';
import type { CallRecord } from '../store/calls.js';
import { placeCall, type PlaceCall } from '../calls/outbound.js';
import type { FlowServices } from './services.js';
import type { Flow } from './flow.js';
import { fetchAndRun, runMarkup } from './interpreter.js';

export type MarkupSource =
  | { kind: 'url'; url: string; method: 'POST' | 'GET'; format: MarkupFormat }
  | { kind: 'inline'; verbs: Verb[]; format: MarkupFormat };

export type PlaceMarkupCall = Omit<PlaceCall, 'onAnswered'> & { markup: MarkupSource };

/** Places the call; once answered, the document is fetched from its URL (or given inline) and runs. */
export function placeMarkupCall(services: FlowServices, req: PlaceMarkupCall): Promise<{ call: CallRecord; done: Promise<void> }> {
  const { markup, ...placement } = req;
  return placeCall(services, {
    ...placement,
    onAnswered: async (session, { answeredBy }) => {
      const flow: Flow = { services, session, docUrl: null, format: markup.format };
      if (markup.kind === 'inline') return runMarkup(flow, markup.verbs);
      await fetchAndRun(flow, markup.url, markup.method, {
        from: req.from, to: req.to, direction: 'outbound-api', call_sid: session.sid, ...(answeredBy ? { answered_by: answeredBy } : {}),
      });
    },
  });
}

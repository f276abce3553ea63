import type { RedirectVerb } from '../../markup/index.js';
import { failCall, gotoOrFail, requestDocument, resolveUrl, type Flow, type Outcome } from '../flow.js';

export async function redirectVerb(flow: Flow, verb: RedirectVerb): Promise<Outcome> {
  const url = resolveUrl(flow, verb.url);
  if (!url) return failCall(flow, `redirect target "${verb.url}" is not a URL`);
  const { call } = flow.session;
  return gotoOrFail(flow, await requestDocument(flow, url, verb.method, { from: call.from, to: call.to, direction: call.direction, call_sid: call.sid }));
}

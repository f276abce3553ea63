import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { formOf, queryOf, sendPage, viewerOf, type Dashboard, type Viewer } from '../context.js';
import { endByRequest, type EndRefusal } from '../../../calls/end-by-request.js';
import { redirectByRequest, type RedirectRefusal } from '../../../flows/redirect-by-request.js';
import { checkCustomerUrl, customerUrlProblem } from '../../../net/index.js';
import { FormRender, type FieldErrors } from '../forms.js';
import type { CallDirection, CallFilter, CallRecord, CallStatus } from '../../../store/calls.js';
import { CALL_DIRECTIONS, CALL_STATUSES, callsView } from '../views/calls.js';
import { callView } from '../views/call.js';
import { readFullDate } from '../../../rfc3339.js';
import { errorView } from '../views/auth.js';
import { ApiError } from '../../errors.js';

const PAGE_SIZE = 25;
/** Why Hang up did nothing, in words (endByRequest's refusals; "canceled" is never asked here). */
const HANGUP_REFUSALS: Record<EndRefusal, string> = {
  call_ended: 'This call has already ended.',
  call_in_progress: 'This call is in progress.',
  call_not_carried_here: 'This call is not running on this server (it may be left over from a restart): it cannot be hung up here.',
};
/** Why Redirect did nothing, in words (redirectByRequest's refusals). */
const REDIRECT_REFUSALS: Record<RedirectRefusal, string> = {
  call_ended: 'This call has already ended.',
  call_not_carried_here: 'This call is not running on this server (it may be left over from a restart): it cannot be redirected here.',
  call_not_running_markup: 'No instructions run on this call now (not answered yet, a dialled or agent leg, or its instructions have finished): redirect the caller\'s call instead.',
};
/** A call another control plane carries, when that node does not answer (docs/cluster.md). */
const OWNER_UNAVAILABLE = 'The server carrying this call does not answer (it may have just stopped; the others finish its calls within 15 seconds). Try again shortly.';
const SID = /^CA[0-9a-f]{32}$/;
const DAY_MS = 86_400_000;

/** The query string as a call filter; bad values are reported beside their filter and otherwise ignored. */
/** `numberId`: the id of the account's number `q.number` names, looked up before. */
function filterFrom(q: Record<string, string>, numberId: number | undefined): { filter: CallFilter; errors: FieldErrors } {
  const filter: CallFilter = { limit: PAGE_SIZE };
  const errors: FieldErrors = {};
  if (q.status) {
    if ((CALL_STATUSES as readonly string[]).includes(q.status)) filter.status = q.status as CallStatus;
    else errors.status = ['Choose a status from the list.'];
  }
  if (q.direction) {
    if ((CALL_DIRECTIONS as readonly string[]).includes(q.direction)) filter.direction = q.direction as CallDirection;
    else errors.direction = ['Choose a direction from the list.'];
  }
  if (q.number) {
    const id = numberId;
    if (id === undefined) errors.number = ['Not one of your numbers.'];
    else filter.numberId = id;
  }
  if (q.date) {
    const start = readFullDate(q.date);
    if (start === null) errors.date = ['Enter a date of the calendar as YYYY-MM-DD.'];
    else { filter.since = new Date(start).toISOString(); filter.until = new Date(start + DAY_MS).toISOString(); }
  }
  if (q.before && SID.test(q.before)) filter.before = q.before;
  return { filter, errors };
}

function withQuery(q: Record<string, string>, changes: Record<string, string | null>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...q, ...changes })) if (v && ['status', 'direction', 'number', 'date', 'before'].includes(k)) params.set(k, v);
  const s = params.toString();
  return `/dashboard/calls${s ? `?${s}` : ''}`;
}

export function callRoutes(app: FastifyInstance, d: Dashboard): void {
  app.get('/calls', async (req, reply) => {
    const v = viewerOf(req);
    const q = queryOf(req);
    const { filter, errors } = filterFrom(q, q.number ? (await d.numbers.findOwned(v.account.id, q.number))?.id : undefined);
    const { calls, next } = await d.store.calls.list(v.account.id, filter);
    const numbers = await d.store.numbers.listForAccount(v.account.id);
    return sendPage(reply, callsView(v, calls, new FormRender(q, errors), {
      numbers: numbers.map((n) => n.e164),
      olderHref: next ? withQuery(q, { before: next }) : null,
      newestHref: filter.before ? withQuery(q, { before: null }) : null,
    }), Object.keys(errors).length ? 422 : 200);
  });

  // The conferences a call took part in, each with its participant row (added, and when it left).
  const conferencesOf = async (callSid: string) => Promise.all((await d.store.conferences.participationsOfCall(callSid))
    .map(async (p) => ({ p, conference: (await d.store.conferences.get(p.conferenceSid))! })));

  /** The account's call the path names; undefined once the 404 page is sent. */
  async function ownCall(req: FastifyRequest<{ Params: { sid: string } }>, reply: FastifyReply): Promise<CallRecord | undefined> {
    const call = await d.store.calls.getForAccount(viewerOf(req).account.id, req.params.sid);
    if (!call) void sendPage(reply, errorView(404, 'There is no such call on this account.', viewerOf(req)), 404);
    return call;
  }

  const callPage = async (v: Viewer, call: CallRecord, opts: { problem?: string; notice?: string } = {}) => {
    const children = (await d.store.calls.list(v.account.id, { parentSid: call.sid, limit: 100 })).calls;
    return callView(v, call, await d.store.calls.timeline(call.sid), await d.store.recordings.listForCall(call.sid), children, await conferencesOf(call.sid), opts);
  };

  app.get<{ Params: { sid: string } }>('/calls/:sid', async (req, reply) => {
    const call = await ownCall(req, reply);
    if (!call) return reply;
    const done = queryOf(req).done;
    return sendPage(reply, await callPage(viewerOf(req), call, done ? { notice: done } : {}));
  });

  /**
   * A call another control plane carries is hung up or redirected there, and its answer (the page, or the redirect
   * to it) is the answer; a page says so when that node does not answer.
   */
  async function carriedElsewhere(req: FastifyRequest<{ Params: { sid: string } }>, reply: FastifyReply, call: CallRecord): Promise<boolean> {
    try {
      return await d.forwarding.elsewhere(req, reply, call);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'call_owner_unavailable') throw err;
      await sendPage(reply, await callPage(viewerOf(req), call, { problem: OWNER_UNAVAILABLE }), 503);
      return true;
    }
  }

  // The API's rules (POST /api/calls/{sid} with status "completed"); a refusal shows the page with the reason.
  app.post<{ Params: { sid: string } }>('/calls/:sid/hangup', async (req, reply) => {
    const call = await ownCall(req, reply);
    if (!call) return reply;
    if (await carriedElsewhere(req, reply, call)) return reply;
    const ended = await endByRequest(d.callServices, call, 'completed');
    if (!ended.ok) return sendPage(reply, await callPage(viewerOf(req), call, { problem: HANGUP_REFUSALS[ended.refusal] }), 409);
    return reply.redirect(`/dashboard/calls/${call.sid}?done=call-ended`, 303);
  });

  // The API's rules (POST /api/calls/{sid} with url): the URL under the customer-URL rule, asked before anything changes.
  app.post<{ Params: { sid: string } }>('/calls/:sid/redirect', async (req, reply) => {
    const call = await ownCall(req, reply);
    if (!call) return reply;
    if (await carriedElsewhere(req, reply, call)) return reply;
    const form = formOf(req);
    const refuse = async (problem: string, status: 409 | 422) => sendPage(reply, await callPage(viewerOf(req), call, { problem }), status);
    const url = (form.url ?? '').trim();
    const method = form.method === 'GET' ? 'GET' : 'POST';
    const check = checkCustomerUrl(url, d.callServices.urls);
    if (!check.ok) return refuse(customerUrlProblem('url', check), 422);
    const done = await redirectByRequest(d.callServices, call, { kind: 'url', url, method });
    if (!done.ok) return 'refusal' in done ? refuse(REDIRECT_REFUSALS[done.refusal], 409) : refuse(`The URL gave no instructions: ${done.unavailable}.`, 422);
    return reply.redirect(`/dashboard/calls/${call.sid}?done=call-redirected`, 303);
  });

  // Session-authenticated media for the page's <audio>; a foreign or unknown SID is the same 404.
  app.get<{ Params: { sid: string } }>('/recordings/:sid.wav', async (req, reply) => {
    const rec = await d.store.recordings.getForAccount(viewerOf(req).account.id, req.params.sid);
    const size = rec ? await stat(rec.file).then((s) => s.size, () => null) : null;
    if (!rec || size === null) return sendPage(reply, errorView(404, 'There is no such recording on this account.', viewerOf(req)), 404);
    void reply.header('accept-ranges', 'bytes').header('cache-control', 'private, no-store').type('audio/wav');
    // Browsers seek in media with Range requests; one range is all an <audio> element asks for.
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    if (range && (range[1] || range[2])) {
      const start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
      const end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
      if (start >= size || start > end) return reply.status(416).header('content-range', `bytes */${size}`).send();
      return reply.status(206).header('content-range', `bytes ${start}-${end}/${size}`).header('content-length', end - start + 1)
        .send(createReadStream(rec.file, { start, end }));
    }
    return reply.header('content-length', size).send(createReadStream(rec.file));
  });
}

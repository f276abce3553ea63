import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { PlatformServices } from '../platform-services.js';
import type { CallsPerSecondCap } from '../../calls/cps-limiter.js';
import { placeMarkupCall } from '../../flows/outbound.js';
import { endByRequest, type EndRefusal } from '../../calls/end-by-request.js';
import type { CallDispatcher } from '../../flows/dispatcher.js';
import type { CallForwarding } from '../cluster/forwarding.js';
import type { NodeDrain } from '../cluster/drain.js';
import { checkInlineMarkup, toPlacement } from '../place-request.js';
import { redirectByRequest, type RedirectRefusal, type RedirectRequest } from '../../flows/redirect-by-request.js';
import { checkCustomerUrl, checkStreamUrl, customerUrlProblem } from '../../net/index.js';
import { sipUrisOf } from '../../markup/index.js';
import type { CallRecord } from '../../store/calls.js';
import { errors, type ApiError } from '../errors.js';
import type { FieldErrors } from '../../field-errors.js';
import { CallCreateBody, CallList, CallListQuery, CallResource, CallUpdateBody, type CallCreateInput, type CallListInput, type CallUpdateInput } from '../schemas/call.js';
import { callView } from './call-views.js';
import { authErrors, notFoundError, validationError } from './error-responses.js';

const tags = ['Calls (live)'];
const security = [{ bearerAuth: [] }];
const SidParams = Type.Object({ callSid: Type.String() });

export async function loadCall(services: PlatformServices, req: FastifyRequest<{ Params: { callSid: string } }>): Promise<CallRecord> {
  const call = await services.store.calls.getForAccount(req.account.id, req.params.callSid);
  if (!call) throw errors.notFound('Call');
  return call;
}

/**
 * Names in SIP destinations judged on what they resolve to now, so a name pointing inside is a 422 rather than
 * a failed call. A name that does not resolve yet is let through: the dial re-checks it and fails visibly.
 */
async function refusedSipNames(services: PlatformServices, named: Array<[field: string, uri: string]>): Promise<FieldErrors | null> {
  const errors: FieldErrors = {};
  for (const [field, uri] of named) {
    const vet = await services.sip.vet(uri);
    if (!vet.ok && !vet.unresolvable) (errors[field] ??= []).push(`The SIP destination ${uri} is refused: ${vet.reason}.`);
  }
  return Object.keys(errors).length > 0 ? errors : null;
}

/** The API's words for what endByRequest and redirectByRequest refuse. */
const REFUSALS: Record<EndRefusal | RedirectRefusal, (call: CallRecord) => ApiError> = {
  call_ended: (call) => errors.callEnded(call.status),
  call_in_progress: () => errors.callAnswered(),
  call_not_carried_here: () => errors.callNotCarriedHere(),
  call_not_running_markup: () => errors.callNotRunningMarkup(),
};

/** What a redirect asks for, checked as a placed call's url or markup is; field errors when it is refused. */
async function toRedirect(services: PlatformServices, accountId: number, body: CallUpdateInput): Promise<RedirectRequest> {
  if (body.url !== undefined) {
    const check = checkCustomerUrl(body.url, services.urls);
    if (!check.ok) throw errors.validation({ url: [customerUrlProblem('url', check)] });
    return { kind: 'url', url: body.url, method: body.method ?? 'POST' };
  }
  const inline = checkInlineMarkup(body.markup!, {
    url: (url) => services.media.check(url), sip: (uri) => services.sip.check(uri), stream: (url) => checkStreamUrl(url, services.urls),
    voices: await services.voices.book(accountId),
  });
  if (!inline.ok) throw errors.validation({ markup: inline.problems });
  const refused = await refusedSipNames(services, sipUrisOf(inline.verbs).map((uri): [string, string] => ['markup', uri]));
  if (refused) throw errors.validation(refused);
  return { kind: 'markup', verbs: inline.verbs };
}

/** Exactly one of status, url, markup; method only beside url. */
function updateShapeErrors(body: CallUpdateInput): FieldErrors | null {
  const given = (['status', 'url', 'markup'] as const).filter((k) => body[k] !== undefined);
  if (given.length !== 1) return { [given[1] ?? 'status']: ['Give exactly one of status (end the call), url or markup (redirect it).'] };
  if (body.method !== undefined && body.url === undefined) return { method: ['method goes with url.'] };
  return null;
}

export async function callRoutes(app: FastifyInstance, deps: { services: PlatformServices; cps: CallsPerSecondCap; dispatcher: CallDispatcher; forwarding: CallForwarding; drain: Pick<NodeDrain, 'active'> }): Promise<void> {
  const { services, cps, dispatcher } = deps;
  const { store, engine } = services;
  const view = (c: CallRecord) => callView(c, store, services.publicBaseUrl);

  app.post<{ Body: CallCreateInput }>('/api/calls', {
    schema: {
      tags, security, summary: 'Place a call', body: CallCreateBody,
      // 429 also when the account's calls per second are spent; 500 call_not_placed when the engine cannot place it.
      response: { 201: CallResource, ...validationError, ...authErrors, 500: { $ref: 'LiveError#' }, 503: { $ref: 'LiveError#' } },
    },
  }, async (req, reply) => {
    // A draining node places no new call: a live node that is not draining does (docs/cluster.md).
    if (deps.drain.active) {
      if (await deps.forwarding.toPeer(req, reply)) return reply;
      throw errors.nodeDraining();
    }
    const checked = await toPlacement(store, req.account.id, req.body, {
      url: (url) => services.media.check(url), callback: (url) => checkCustomerUrl(url, services.urls), sip: (uri) => services.sip.check(uri),
      stream: (url) => checkStreamUrl(url, services.urls), voices: await services.voices.book(req.account.id),
    });
    if (!checked.ok) throw errors.validation(checked.errors);
    const { target, markup } = checked.placement;
    const resolvedRefusals = await refusedSipNames(services, [
      ...(target.kind === 'sip' ? [['to', target.uri] as [string, string]] : []),
      ...(markup.kind === 'inline' ? sipUrisOf(markup.verbs).map((uri): [string, string] => ['markup', uri]) : []),
    ]);
    if (resolvedRefusals) throw errors.validation(resolvedRefusals);
    const health = engine.health();
    if (!health.ok) throw errors.callNotPlaced(`the call engine is unavailable (${health.detail})`);
    const route = engine.routeProblem?.(checked.placement.target);
    if (route) throw errors.callNotPlaced(route);
    const slot = await cps.take(req.account.id, req.account.cpsCap);
    if (!slot.ok) throw errors.callsPerSecondExceeded(req.account.cpsCap, slot.retryAfterSeconds, slot.resetAt);
    const { call, done } = await placeMarkupCall(services, { ...checked.placement, admittedAtMs: slot.at });
    void dispatcher.track(done);
    return reply.status(201).send(await view(call));
  });

  app.get<{ Params: { callSid: string } }>('/api/calls/:callSid', {
    schema: { tags, security, summary: 'Fetch a call', params: SidParams, response: { 200: CallResource, ...notFoundError, ...authErrors } },
  }, async (req) => view(await loadCall(services, req)));

  app.post<{ Params: { callSid: string }; Body: CallUpdateInput }>('/api/calls/:callSid', {
    schema: {
      tags, security, summary: 'Change a live call: end it (status), or redirect it to a new document (url or markup)', params: SidParams, body: CallUpdateBody,
      response: { 200: CallResource, 409: { $ref: 'LiveError#' }, 503: { $ref: 'LiveError#' }, ...notFoundError, ...validationError, ...authErrors },
    },
  }, async (req, reply) => {
    const shape = updateShapeErrors(req.body);
    if (shape) throw errors.validation(shape);
    const call = await loadCall(services, req);
    if (await deps.forwarding.elsewhere(req, reply, call)) return reply;
    if (req.body.status !== undefined) {
      const ended = await endByRequest(services, call, req.body.status);
      if (!ended.ok) throw REFUSALS[ended.refusal](call);
      return view(ended.call);
    }
    const redirected = await redirectByRequest(services, call, await toRedirect(services, req.account.id, req.body));
    if (!redirected.ok) {
      if ('refusal' in redirected) throw REFUSALS[redirected.refusal](call);
      throw errors.validation({ url: [`The URL gave no document: ${redirected.unavailable}.`] });
    }
    return view((await store.calls.get(call.sid))!);
  });

  app.get<{ Querystring: CallListInput }>('/api/calls', {
    schema: { tags, security, summary: 'List calls, newest first, with filters', querystring: CallListQuery, response: { 200: CallList, ...validationError, ...authErrors } },
  }, async (req) => {
    const q = req.query;
    const page = await store.calls.list(req.account.id, {
      ...(q.status ? { status: q.status as CallRecord['status'] } : {}),
      ...(q.direction ? { direction: q.direction as CallRecord['direction'] } : {}),
      ...(q.from ? { from: q.from } : {}), ...(q.to ? { to: q.to } : {}),
      ...(q.parent_call_sid ? { parentSid: q.parent_call_sid } : {}),
      ...(q.start_time_after ? { since: new Date(q.start_time_after).toISOString() } : {}),
      ...(q.start_time_before ? { until: new Date(q.start_time_before).toISOString() } : {}),
      ...(q.page_token ? { before: q.page_token } : {}),
      limit: q.page_size ?? 50,
    });
    return { data: await Promise.all(page.calls.map(view)), next_page_token: page.next };
  });
}

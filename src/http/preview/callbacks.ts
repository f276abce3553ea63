// /v1/callbacks: a customer to call back for a queue at a time; the ACD rings an agent first, then the customer
// (src/acd/callback-dialer.ts). Cancel while scheduled (docs/acd.md).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Store } from '../../repositories.js';
import type { Clock } from '../../clock.js';
import type { ScheduledCallback } from '../../acd/callbacks.js';
import { newSid } from '../../crypto/tokens.js';
import { errors, previewErrors } from '../errors.js';
import { acceptFormBodies } from '../form-bodies.js';
import { SidParams, previewErrorResponses } from '../schemas/preview.js';
import { CallbackCreateBody, CallbackList, CallbackListQuery, CallbackResource, type CallbackCreateInput, type CallbackListInput } from '../schemas/preview-callbacks.js';
import { fetchPageAsync, pageRequest } from './pagination.js';
import { readRfc3339 } from '../../rfc3339.js';
import { callerNumber } from './call-parties.js';

const tags = ['Queues and agents (preview)'];
const security = [{ bearerAuth: [] }];
const MAX_AHEAD_MS = 90 * 24 * 3600_000;
/** A due time this close to now counts as "now": the client's clock and ours differ a little. */
const PAST_GRACE_MS = 5_000;

export const callbackView = (c: ScheduledCallback) => ({
  sid: c.sid, queue_sid: c.queueSid, to: c.to, from: c.from, due_at: new Date(c.dueAt).toISOString(), attributes: c.attributes, status: c.status,
  attempts: c.attempts, call_sid: c.callSid, agent_sid: c.agentSid, answered_by: c.answeredBy, last_error: c.lastError, lead_sid: c.leadSid, date_created: c.createdAt, date_updated: c.updatedAt,
});

export async function callbackRoutes(app: FastifyInstance, deps: { store: Store; clock: Clock }): Promise<void> {
  acceptFormBodies(app);
  const { store, clock } = deps;
  const load = async (req: FastifyRequest<{ Params: { sid: string } }>) => {
    const found = await store.scheduledCallbacks.getForAccount(req.account.id, req.params.sid);
    if (!found) throw errors.notFound('Callback');
    return found;
  };

  app.post<{ Body: CallbackCreateInput }>('/v1/callbacks', {
    schema: { tags, security, summary: 'Schedule a callback: at due_at an agent of the queue is rung, then the customer', body: CallbackCreateBody, response: { 201: CallbackResource, ...previewErrorResponses() } },
  }, async (req, reply) => {
    const b = req.body;
    const queue = await store.queues.find(req.account.id, b.queue);
    if (!queue) throw previewErrors.parameterInvalid('queue', `No queue is named or has the sid ${JSON.stringify(b.queue)}.`);
    await callerNumber({ store }, req.account.id, b.from);
    // The schema's date-time format has refused anything but a real RFC 3339 time.
    const due = readRfc3339(b.due_at);
    if (!due.ok) throw previewErrors.parameterInvalid('due_at', `The due_at parameter ${due.problem}.`);
    const dueAt = due.ms;
    const now = clock.now();
    if (dueAt < now - PAST_GRACE_MS) throw previewErrors.parameterInvalid('due_at', 'The due_at parameter is in the past.');
    if (dueAt > now + MAX_AHEAD_MS) throw previewErrors.parameterInvalid('due_at', 'The due_at parameter is more than 90 days ahead.');
    const created = await store.scheduledCallbacks.create({
      sid: newSid('CB'), accountId: req.account.id, queueId: queue.id, to: b.to, from: b.from, dueAt: Math.max(dueAt, now), attributes: b.attributes ?? {}, leadSid: null,
    });
    return reply.status(201).send(callbackView(created));
  });

  app.get<{ Querystring: CallbackListInput }>('/v1/callbacks', {
    schema: { tags, security, summary: 'List callbacks, newest first; filter status', querystring: CallbackListQuery, response: { 200: CallbackList, ...previewErrorResponses() } },
  }, async (req) => fetchPageAsync(pageRequest(req.query), (p) => store.scheduledCallbacks.listForAccount(req.account.id, req.query.status ? { status: req.query.status } : {}, p), callbackView));

  app.get<{ Params: { sid: string } }>('/v1/callbacks/:sid', {
    schema: { tags, security, summary: 'Fetch a callback', params: SidParams, response: { 200: CallbackResource, ...previewErrorResponses(404) } },
  }, async (req) => callbackView(await load(req)));

  app.delete<{ Params: { sid: string } }>('/v1/callbacks/:sid', {
    schema: { tags, security, summary: 'Cancel a scheduled callback (refused once it is dialing or finished)', params: SidParams, response: { 200: CallbackResource, ...previewErrorResponses(404, 409) } },
  }, async (req) => {
    const callback = await load(req);
    if (!(await store.scheduledCallbacks.cancel(callback.sid))) {
      throw previewErrors.conflict('callback_not_scheduled', `The callback is ${callback.status}; only a scheduled callback can be canceled.`);
    }
    return callbackView((await store.scheduledCallbacks.get(callback.sid))!);
  });
}

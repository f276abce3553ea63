// /v1/queues: ACD queues (settings, live size and waits) and the callers waiting in each (docs/acd.md).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Store } from '../../repositories.js';
import type { MediaCache } from '../../media/media-cache.js';
import { DEFAULT_QUEUE_SETTINGS, QueueNameTakenError, type Queue, type QueueSettings } from '../../acd/queues.js';
import { newSid } from '../../crypto/tokens.js';
import { errors, previewErrors } from '../errors.js';
import { acceptFormBodies } from '../form-bodies.js';
import { PageQuery, SidParams, previewErrorResponses } from '../schemas/preview.js';
import {
  QueueCreateBody, QueueList, QueueMembers, QueueResource, QueueUpdateBody, type QueueCreateInput, type QueueUpdateInput,
} from '../schemas/preview-acd.js';
import { fetchPageAsync, pageRequest } from './pagination.js';

const tags = ['Queues and agents (preview)'];
const security = [{ bearerAuth: [] }];
type SidRequest = FastifyRequest<{ Params: { sid: string } }>;

export async function queueView(store: Store, q: Queue) {
  const f = await store.queues.figures(q);
  return {
    sid: q.sid, friendly_name: q.friendlyName, max_wait_seconds: q.maxWaitSeconds, ring_timeout_seconds: q.ringTimeoutSeconds,
    wrap_up_seconds: q.wrapUpSeconds, max_no_answer: q.maxNoAnswer, wait_url: q.waitUrl,
    machine_detection: q.machineDetection, machine_action: q.machineAction, machine_message: q.machineMessage, size: f.size, agents_available: f.agentsAvailable,
    longest_wait_seconds: f.longestWaitSeconds, date_created: q.createdAt, date_updated: q.updatedAt,
  };
}

export async function queueRoutes(app: FastifyInstance, deps: { store: Store; media: MediaCache }): Promise<void> {
  acceptFormBodies(app);
  const { store, media } = deps;

  async function load(req: SidRequest): Promise<Queue> {
    const queue = await store.queues.getForAccount(req.account.id, req.params.sid);
    if (!queue) throw errors.notFound('Queue');
    return queue;
  }

  /**
   * The stored settings after `body` changes `base`; wait_url under the media policy (it is played to callers); a
   * message for machines only with a message to say and detection that waits for the greeting's end.
   */
  function settings(base: QueueSettings, body: QueueUpdateInput): QueueSettings {
    if (body.wait_url !== undefined && body.wait_url !== null) {
      const check = media.check(body.wait_url);
      if (!check.ok) throw previewErrors.parameterInvalid('wait_url', `The wait_url cannot be used (${check.code}): ${check.reason}.`);
    }
    const next: QueueSettings = {
      friendlyName: body.friendly_name ?? base.friendlyName,
      maxWaitSeconds: body.max_wait_seconds ?? base.maxWaitSeconds,
      ringTimeoutSeconds: body.ring_timeout_seconds ?? base.ringTimeoutSeconds,
      wrapUpSeconds: body.wrap_up_seconds ?? base.wrapUpSeconds,
      maxNoAnswer: body.max_no_answer ?? base.maxNoAnswer,
      waitUrl: body.wait_url === undefined ? base.waitUrl : body.wait_url,
      machineDetection: body.machine_detection === undefined ? base.machineDetection : body.machine_detection,
      machineAction: body.machine_action ?? base.machineAction,
      machineMessage: body.machine_message === undefined ? base.machineMessage : body.machine_message?.trim() || null,
    };
    if (next.machineAction === 'message') {
      if (next.machineMessage === null) throw previewErrors.parameterInvalid('machine_message', 'machine_action message needs a machine_message to say.');
      if (next.machineDetection !== 'detect_message_end') {
        throw previewErrors.parameterInvalid('machine_detection', 'machine_action message needs machine_detection detect_message_end: the message is said once the greeting ends.');
      }
    }
    return next;
  }
  const nameTaken = (err: unknown) => (err instanceof QueueNameTakenError
    ? previewErrors.conflict('queue_exists', `A queue named ${err.friendlyName} already exists; names are unique in an account.`)
    : err);

  app.post<{ Body: QueueCreateInput }>('/v1/queues', {
    schema: { tags, security, summary: 'Create a queue', body: QueueCreateBody, response: { 201: QueueResource, ...previewErrorResponses(409) } },
  }, async (req, reply) => {
    try {
      const queue = await store.queues.create(req.account.id, newSid('QU'), settings(DEFAULT_QUEUE_SETTINGS, req.body));
      return await reply.status(201).send(await queueView(store, queue));
    } catch (err) {
      throw nameTaken(err);
    }
  });

  app.get<{ Querystring: { page_size?: number; cursor?: string } }>('/v1/queues', {
    schema: { tags, security, summary: 'List queues, newest first', querystring: PageQuery, response: { 200: QueueList, ...previewErrorResponses() } },
  }, async (req) => fetchPageAsync(pageRequest(req.query), (p) => store.queues.listForAccount(req.account.id, p), (q) => queueView(store, q)));

  app.get<{ Params: { sid: string } }>('/v1/queues/:sid', {
    schema: { tags, security, summary: 'Fetch a queue with its live figures', params: SidParams, response: { 200: QueueResource, ...previewErrorResponses(404) } },
  }, async (req) => queueView(store, await load(req)));

  app.post<{ Params: { sid: string }; Body: QueueUpdateInput }>('/v1/queues/:sid', {
    schema: { tags, security, summary: 'Update a queue', params: SidParams, body: QueueUpdateBody, response: { 200: QueueResource, ...previewErrorResponses(404, 409) } },
  }, async (req) => {
    const queue = await load(req);
    try {
      return await queueView(store, await store.queues.update(queue, settings(queue, req.body)));
    } catch (err) {
      throw nameTaken(err);
    }
  });

  app.delete<{ Params: { sid: string } }>('/v1/queues/:sid', {
    schema: { tags, security, summary: 'Delete a queue (refused while callers wait in it)', params: SidParams, response: { 204: { type: 'null', description: 'Deleted.' }, ...previewErrorResponses(404, 409) } },
  }, async (req, reply) => {
    const queue = await load(req);
    if (!(await store.queues.deleteIfEmpty(queue))) {
      throw previewErrors.conflict('queue_not_empty', `Callers are waiting in ${queue.friendlyName}, or callbacks are scheduled for it; delete it once they have left and the callbacks are done or canceled.`);
    }
    return reply.status(204).send();
  });

  app.get<{ Params: { sid: string } }>('/v1/queues/:sid/members', {
    schema: { tags, security, summary: 'The callers waiting in a queue, first in line first', params: SidParams, response: { 200: QueueMembers, ...previewErrorResponses(404) } },
  }, async (req) => ({
    data: (await store.queues.waiting(await load(req))).map((m) => ({ call_sid: m.callSid, position: m.position, wait_seconds: m.waitSeconds })),
    has_more: false, next_cursor: null,
  }));
}

// /v1/dispositions: an agent (or a system) sets the outcome of a call; the disposition event goes out with it and
// the agent's wrap-up ends (AcdService.dispose; docs/acd.md).
import type { FastifyInstance } from 'fastify';
import type { Disposition } from '../../acd/dispositions.js';
import type { AcdService } from '../../acd/service.js';
import type { Store } from '../../repositories.js';
import { previewErrors } from '../errors.js';
import { acceptFormBodies } from '../form-bodies.js';
import { previewErrorResponses } from '../schemas/preview.js';
import { DispositionCreateBody, DispositionList, DispositionListQuery, DispositionResource, type DispositionCreateInput } from '../schemas/preview-acd.js';

const tags = ['Queues and agents (preview)'];
const security = [{ bearerAuth: [] }];

const view = (d: Disposition) =>
  ({ sid: d.sid, call_sid: d.callSid, disposition: d.disposition, notes: d.notes, agent_sid: d.agentSid, date_created: d.createdAt });

export async function dispositionRoutes(app: FastifyInstance, deps: { store: Store; acd: Pick<AcdService, 'dispose'> }): Promise<void> {
  acceptFormBodies(app);
  const { store } = deps;

  app.post<{ Body: DispositionCreateInput }>('/v1/dispositions', {
    schema: { tags, security, summary: "Set a call's disposition (ends the agent's wrap-up; emits the disposition event)", body: DispositionCreateBody, response: { 201: DispositionResource, ...previewErrorResponses() } },
  }, async (req, reply) => {
    const b = req.body;
    const call = await store.calls.getForAccount(req.account.id, b.call_sid);
    if (!call) throw previewErrors.parameterInvalid('call_sid', `No call of this account has the sid ${b.call_sid}.`);
    return reply.status(201).send(view(await deps.acd.dispose(req.account.id, call, b.disposition, b.notes ?? null)));
  });

  app.get<{ Querystring: { call_sid: string } }>('/v1/dispositions', {
    schema: { tags, security, summary: "A call's dispositions, oldest first", querystring: DispositionListQuery, response: { 200: DispositionList, ...previewErrorResponses() } },
  }, async (req) => ({ data: (await store.dispositions.forCall(req.account.id, req.query.call_sid)).map(view), has_more: false, next_cursor: null }));
}

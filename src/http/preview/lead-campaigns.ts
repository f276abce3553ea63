// /v1/lead-campaigns/{name}: a campaign's settings. Speed to lead: each lead injected for the campaign becomes a
// callback due at once in a queue (docs/acd.md), calling the lead from the campaign's caller ID.
import type { FastifyInstance } from 'fastify';
import type { PlatformServices } from '../platform-services.js';
import type { LeadCampaign } from '../../acd/campaigns.js';
import { errors, previewErrors } from '../errors.js';
import { acceptFormBodies } from '../form-bodies.js';
import { previewErrorResponses } from '../schemas/preview.js';
import { Campaign, CampaignBody, CampaignParams, type CampaignInput } from '../schemas/preview-leads.js';
import { Type } from '@sinclair/typebox';
import { callerNumber } from './call-parties.js';

const tags = ['Lead injection (preview)'];
const security = [{ bearerAuth: [] }];
const view = (c: LeadCampaign) => ({ name: c.name, speed_to_lead_queue_sid: c.queueSid, caller_id: c.callerId, date_created: c.createdAt, date_updated: c.updatedAt });

export async function leadCampaignRoutes(app: FastifyInstance, deps: { services: Pick<PlatformServices, 'store'> }): Promise<void> {
  acceptFormBodies(app);
  const { store } = deps.services;

  app.post<{ Params: { name: string }; Body: CampaignInput }>('/v1/lead-campaigns/:name', {
    schema: { tags, security, summary: "Set a campaign's speed to lead (created on first use)", params: CampaignParams, body: CampaignBody, response: { 200: Campaign, ...previewErrorResponses() } },
  }, async (req) => {
    const b = req.body;
    const current = await store.leadCampaigns.get(req.account.id, req.params.name);
    const queueRef = b.speed_to_lead_queue === undefined ? current?.queueSid ?? null : b.speed_to_lead_queue;
    const queue = queueRef === null ? null : await store.queues.find(req.account.id, queueRef);
    if (queueRef !== null && !queue) throw previewErrors.parameterInvalid('speed_to_lead_queue', `No queue is named or has the sid ${JSON.stringify(queueRef)}.`);
    const callerId = b.caller_id === undefined ? current?.callerId ?? null : b.caller_id;
    if (queue && callerId === null) throw previewErrors.parameterInvalid('caller_id', 'Speed to lead needs a caller_id: a number of this account the lead sees calling.');
    if (callerId !== null) await callerNumber(deps.services, req.account.id, callerId, 'caller_id');
    return view(await store.leadCampaigns.put(req.account.id, req.params.name, { queueId: queue?.id ?? null, callerId }));
  });

  app.get('/v1/lead-campaigns', {
    schema: { tags, security, summary: 'Campaigns with settings, by name', response: { 200: Type.Object({ data: Type.Array(Campaign), has_more: Type.Boolean(), next_cursor: Type.Null() }), ...previewErrorResponses() } },
  }, async (req) => ({ data: (await store.leadCampaigns.list(req.account.id)).map(view), has_more: false, next_cursor: null }));

  app.get<{ Params: { name: string } }>('/v1/lead-campaigns/:name', {
    schema: { tags, security, summary: "A campaign's settings", params: CampaignParams, response: { 200: Campaign, ...previewErrorResponses(404) } },
  }, async (req) => {
    const found = await store.leadCampaigns.get(req.account.id, req.params.name);
    if (!found) throw errors.notFound('Campaign');
    return view(found);
  });

  app.delete<{ Params: { name: string } }>('/v1/lead-campaigns/:name', {
    schema: { tags, security, summary: "Remove a campaign's settings (its leads stay)", params: CampaignParams, response: { 204: { type: 'null', description: 'Removed.' }, ...previewErrorResponses(404) } },
  }, async (req, reply) => {
    if (!(await store.leadCampaigns.delete(req.account.id, req.params.name))) throw errors.notFound('Campaign');
    return reply.status(204).send();
  });
}

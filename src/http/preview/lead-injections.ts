// POST /v1/lead-injections: web forms and partner systems push leads in. Authenticated by the organisation's
// injection token and IP allow-list, not an API key (the token may sit in a less trusted system).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Store } from '../../repositories.js';
import type { SqlQueries } from '../../store/sql.js';
import type { LifecycleEvents } from '../../events/lifecycle.js';
import type { Lead as LeadRecord } from '../../org/leads.js';
import { errors, previewErrors } from '../errors.js';
import { newSid } from '../../crypto/tokens.js';
import { checkCallerId } from '../../numbers/caller-id.js';
import { Lead, LeadInjectionBody, type LeadInjectionInput } from '../schemas/preview-leads.js';
import { SidParams, previewErrorResponses } from '../schemas/preview.js';
import type { TrustedProxies } from './client-address.js';
import type { RateGate } from './rate-gate.js';

interface Deps { store: Store; events: LifecycleEvents; proxies: TrustedProxies; rate: RateGate }

declare module 'fastify' {
  interface FastifyRequest { injectionAccountId: number }
}

const view = (l: LeadRecord, callbackSid: string | null) =>
  ({ sid: l.sid, status: l.status, phone: l.phone, campaign: l.campaign, attributes: l.attributes, callback_sid: callbackSid, created_at: l.createdAt });

/** Token first (it names the organisation), then the organisation's IP allow-list, then its rate limit. */
export function injectionAuth(deps: Deps) {
  return async (req: FastifyRequest, reply: { header(name: string, value: string): unknown }) => {
    const raw = req.headers['x-injection-token'];
    const token = Array.isArray(raw) ? raw[0] : raw;
    if (!token || token.trim() === '') throw previewErrors.injectionTokenRequired();
    const accountId = await deps.store.orgSettings.accountForInjectionToken(token.trim());
    if (accountId === null) throw previewErrors.injectionTokenInvalid();
    const ip = deps.proxies.clientIp(req);
    if (!(await deps.store.orgSettings.injectionIpAllowed(accountId, ip))) throw previewErrors.ipNotAllowed(ip);
    await deps.rate.check(`lead-injection:${accountId}`, reply);
    req.injectionAccountId = accountId;
  };
}

/**
 * A campaign with speed to lead turns the lead into a callback due now in its queue; returns the callback's sid.
 * A campaign whose caller ID is no longer the account's refuses the lead: nobody would call it back.
 */
async function speedToLead(store: Store, tx: SqlQueries, accountId: number, lead: LeadRecord): Promise<string | null> {
  const campaign = await store.leadCampaigns.get(accountId, lead.campaign, tx);
  if (campaign?.queueId == null || !campaign.callerId) return null;
  const caller = await checkCallerId(store.numbers, accountId, campaign.callerId, tx);
  if (!caller.ok) {
    throw previewErrors.conflict('campaign_caller_id_unusable', `Campaign ${campaign.name} calls leads back from its caller_id, but ${caller.problem}. `
      + `The lead was not taken; set another caller_id (POST /v1/lead-campaigns/${campaign.name}) or turn speed to lead off.`);
  }
  return (await store.scheduledCallbacks.create({
    sid: newSid('CB'), accountId, queueId: campaign.queueId, to: lead.phone, from: campaign.callerId, dueAt: Date.parse(lead.createdAt),
    attributes: lead.attributes, leadSid: lead.sid,
  }, tx)).sid;
}

export async function leadInjectionRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const { store, events, proxies } = deps;
  app.addHook('onRequest', injectionAuth(deps));

  app.post<{ Body: LeadInjectionInput }>('/v1/lead-injections', {
    schema: {
      tags: ['Lead injection (preview)'],
      summary: 'Inject a lead (X-Injection-Token and IP allow-list; no API key)',
      security: [{ injectionToken: [] }],
      body: LeadInjectionBody,
      response: { 202: Lead, ...previewErrorResponses(403, 409) },
    },
  }, async (req, reply) => {
    const accountId = req.injectionAccountId;
    // The lead, its web-form event and its speed-to-lead callback commit together: none exists without the others.
    const { lead, callbackSid } = await store.sql.transaction(async (tx) => {
      const created = await store.leads.create({
        accountId, phone: req.body.phone, campaign: req.body.campaign, attributes: req.body.attributes ?? {}, sourceIp: proxies.clientIp(req),
      }, tx);
      await events.emit({
        type: 'web-form', accountId, callSid: null,
        data: { lead_sid: created.sid, phone: created.phone, campaign: created.campaign, attributes: created.attributes },
      }, tx);
      return { lead: created, callbackSid: await speedToLead(store, tx, accountId, created) };
    });
    return reply.status(202).send(view(lead, callbackSid));
  });
}

/** GET /v1/leads/{sid}: read back an injected lead with an API key. */
export async function leadRoutes(app: FastifyInstance, deps: { store: Store }): Promise<void> {
  app.get<{ Params: { sid: string } }>('/v1/leads/:sid', {
    schema: {
      tags: ['Lead injection (preview)'], summary: 'Fetch an injected lead', security: [{ bearerAuth: [] }],
      params: SidParams, response: { 200: Lead, ...previewErrorResponses(404) },
    },
  }, async (req) => {
    const lead = await deps.store.leads.getForAccount(req.account.id, req.params.sid);
    if (!lead) throw errors.notFound('Lead');
    return view(lead, (await deps.store.scheduledCallbacks.forLead(lead.sid))?.sid ?? null);
  });
}

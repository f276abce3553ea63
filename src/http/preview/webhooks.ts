// /v1/webhooks: subscription CRUD and the per-subscription delivery log.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Store } from '../../repositories.js';
import type { EventSystem } from '../../events/index.js';
import { newSubscriptionSecret, SubscriptionExistsError, type Subscription, type SubscriptionChanges } from '../../events/subscriptions.js';
import type { DeliveryLogEntry } from '../../events/outbox-store.js';
import { errors, previewErrors } from '../errors.js';
import { PageQuery, SidParams, previewErrorResponses } from '../schemas/preview.js';
import {
  MAX_RETRIES, TIMEOUT_MS, WebhookCreateBody, WebhookDeliveryList, WebhookList, WebhookSubscription, WebhookSubscriptionCreated,
  WebhookUpdateBody, type WebhookCreateInput, type WebhookUpdateInput,
} from '../schemas/preview-webhooks.js';
import { fetchPageAsync, pageRequest } from './pagination.js';
import { checkHeaders, checkTarget, checkTemplate } from './webhook-input.js';
import { sealHeaders } from '../../events/subscription-headers.js';

interface Deps { config: Config; store: Store; secrets: SecretBox; eventSystem: EventSystem }

const tags = ['Webhook subscriptions (preview)'];
const security = [{ bearerAuth: [] }];
type SidRequest = FastifyRequest<{ Params: { sid: string } }>;

function view(s: Subscription) {
  return {
    sid: s.sid, event_type: s.eventType, target_url: s.targetUrl, headers: s.headers, delivery_mode: s.deliveryMode,
    timeout_ms: s.timeoutMs, max_retries: s.maxRetries, payload_template: s.payloadTemplate, status: s.status,
    created_at: s.createdAt, updated_at: s.updatedAt,
  };
}

function deliveryView(d: DeliveryLogEntry) {
  return {
    sid: d.sid, event_sid: d.eventSid, event_type: d.eventType, status: d.status, attempt_count: d.attemptCount,
    next_attempt_at: d.nextAttemptAt, created_at: d.createdAt, completed_at: d.completedAt,
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt, started_at: a.startedAt, status_code: a.statusCode, latency_ms: a.latencyMs, error: a.error,
    })),
  };
}

export async function webhookRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const { config, store, secrets, eventSystem } = deps;
  const subs = store.webhookSubscriptions;
  const allowHosts = async (accountId: number) => (await store.orgSettings.get(accountId)).webhookHosts;

  // Another account's subscription answers exactly like a nonexistent one.
  async function load(req: SidRequest): Promise<Subscription> {
    const sub = await subs.getForAccount(req.account.id, req.params.sid);
    if (!sub) throw errors.notFound('Webhook subscription');
    return sub;
  }

  app.post<{ Body: WebhookCreateInput }>('/v1/webhooks', {
    schema: {
      tags, security, summary: 'Create a subscription (secret shown once)', body: WebhookCreateBody,
      response: { 201: WebhookSubscriptionCreated, ...previewErrorResponses(409) },
    },
  }, async (req, reply) => {
    const b = req.body;
    const secret = newSubscriptionSecret();
    try {
      const sub = await subs.create({
        accountId: req.account.id,
        eventType: b.event_type,
        targetUrl: checkTarget(b.target_url, await allowHosts(req.account.id), config.devAllowLocalTargets),
        headers: sealHeaders(checkHeaders(b.headers ?? {}), secrets),
        deliveryMode: b.delivery_mode ?? 'async',
        timeoutMs: b.timeout_ms ?? TIMEOUT_MS.default,
        maxRetries: b.max_retries ?? MAX_RETRIES.default,
        secretSealed: secrets.seal(secret),
        payloadTemplate: checkTemplate(b.payload_template, b.event_type),
      });
      return await reply.status(201).send({ ...view(sub), secret });
    } catch (err) {
      if (err instanceof SubscriptionExistsError) throw previewErrors.subscriptionExists(err.eventType, err.existingSid);
      throw err;
    }
  });

  app.get<{ Querystring: { page_size?: number; cursor?: string } }>('/v1/webhooks', {
    schema: { tags, security, summary: 'List subscriptions, newest first', querystring: PageQuery, response: { 200: WebhookList, ...previewErrorResponses() } },
  }, async (req) => fetchPageAsync(pageRequest(req.query), (p) => subs.listForAccount(req.account.id, p), (s) => ({
    sid: s.sid, event_type: s.eventType, target_url: s.targetUrl, status: s.status,
  })));

  app.get<{ Params: { sid: string } }>('/v1/webhooks/:sid', {
    schema: { tags, security, summary: 'Fetch a subscription (no secret)', params: SidParams, response: { 200: WebhookSubscription, ...previewErrorResponses(404) } },
  }, async (req) => view(await load(req)));

  app.post<{ Params: { sid: string }; Body: WebhookUpdateInput }>('/v1/webhooks/:sid', {
    preValidation: async (req) => { req.body ??= {}; },
    schema: {
      tags, security, summary: 'Update a subscription: status (pause/resume), target, headers, timeout, retries, template',
      params: SidParams, body: WebhookUpdateBody, response: { 200: WebhookSubscription, ...previewErrorResponses(404) },
    },
  }, async (req) => {
    const sub = await load(req);
    const b = req.body;
    const changes: SubscriptionChanges = {
      targetUrl: b.target_url === undefined ? undefined : checkTarget(b.target_url, await allowHosts(sub.accountId), config.devAllowLocalTargets),
      headers: b.headers === undefined ? undefined : sealHeaders(checkHeaders(b.headers), secrets),
      deliveryMode: b.delivery_mode,
      timeoutMs: b.timeout_ms,
      maxRetries: b.max_retries,
      payloadTemplate: b.payload_template === undefined ? undefined : checkTemplate(b.payload_template, sub.eventType),
      status: b.status,
    };
    const updated = await subs.update(sub, changes);
    // Resuming releases the deliveries held while paused.
    if (b.status === 'active') eventSystem.worker.wake();
    return view(updated);
  });

  app.delete<{ Params: { sid: string } }>('/v1/webhooks/:sid', {
    schema: { tags, security, summary: 'Delete a subscription; pending retries are dropped', params: SidParams, response: { 204: { type: 'null', description: 'Deleted' }, ...previewErrorResponses(404) } },
  }, async (req, reply) => {
    await subs.delete(await load(req));
    return reply.status(204).send();
  });

  app.get<{ Params: { sid: string }; Querystring: { page_size?: number; cursor?: string } }>('/v1/webhooks/:sid/deliveries', {
    schema: {
      tags, security, summary: 'Delivery log of a subscription, newest first, with every attempt',
      params: SidParams, querystring: PageQuery, response: { 200: WebhookDeliveryList, ...previewErrorResponses(404) },
    },
  }, async (req) => {
    const sub = await load(req);
    return fetchPageAsync(pageRequest(req.query), (p) => eventSystem.outbox.listForSubscription(sub.id, p), deliveryView);
  });
}

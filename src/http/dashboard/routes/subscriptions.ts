// Webhook subscriptions in the dashboard: the same records, target rule and defaults as /v1/webhooks, over
// plain forms (so the HTTP server `npm start` gives can manage them; /v1 wants HTTPS).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formOf, queryOf, sendPage, viewerOf, type Dashboard } from '../context.js';
import { FormRender, type FieldErrors } from '../forms.js';
import { EVENT_TYPES, type EventType } from '../../../events/lifecycle.js';
import { newSubscriptionSecret, SubscriptionExistsError, type DeliveryMode, type Subscription } from '../../../events/subscriptions.js';
import { MAX_RETRIES, TIMEOUT_MS } from '../../schemas/preview-webhooks.js';
import { targetCheck } from '../../preview/webhook-input.js';
import { subscriptionsView } from '../views/subscriptions.js';
import { subscriptionView } from '../views/subscription.js';
import { errorView } from '../views/auth.js';

const LOG_LIMIT = 50;
type SidRequest = FastifyRequest<{ Params: { sid: string; delivery?: string } }>;

export function subscriptionRoutes(app: FastifyInstance, d: Dashboard): void {
  const { outbox, worker } = d.eventSystem;
  const subs = d.store.webhookSubscriptions;
  const list = (accountId: number) => subs.listForAccount(accountId, { beforeId: null, limit: 100 });

  // Another account's subscription reads exactly like a missing one.
  const withSub = (handle: (sub: Subscription, req: SidRequest, reply: FastifyReply) => unknown) => async (req: SidRequest, reply: FastifyReply) => {
    const sub = await subs.getForAccount(viewerOf(req).account.id, req.params.sid);
    if (!sub) return sendPage(reply, errorView(404, 'There is no such subscription on this account.', viewerOf(req)), 404);
    return handle(sub, req, reply);
  };
  const back = (reply: FastifyReply, sub: Subscription, done: string) => reply.redirect(`/dashboard/subscriptions/${sub.sid}?done=${done}`, 303);

  app.get('/subscriptions', async (req, reply) => {
    const v = viewerOf(req);
    return sendPage(reply, subscriptionsView(v, await list(v.account.id), { notice: queryOf(req).done }));
  });

  // The clear secret is rendered in this response only, like an API key.
  app.post('/subscriptions', async (req, reply) => {
    const v = viewerOf(req);
    const form = formOf(req);
    const problems: FieldErrors = {};
    const eventType = EVENT_TYPES.find((t) => t === form.event_type);
    if (!eventType) problems.event_type = ['Choose the event to deliver.'];
    const mode: DeliveryMode | undefined = form.delivery_mode === 'sync' || form.delivery_mode === 'async' ? form.delivery_mode : undefined;
    if (!mode) problems.delivery_mode = ['Choose how the event is delivered.'];
    const target = (form.target_url ?? '').trim();
    const check = target === '' ? null : targetCheck(target, (await d.store.orgSettings.get(v.account.id)).webhookHosts, d.config.devAllowLocalTargets);
    if (!check) problems.target_url = ['Enter the address that receives the events, starting with https://.'];
    else if (!check.ok) problems.target_url = [`This address cannot be used: ${check.why}`];
    if (eventType && mode && check?.ok) {
      const created = await create(v.account.id, eventType, check.url, mode);
      if (created instanceof SubscriptionExistsError) problems.event_type = [`This account already has a subscription to ${eventType}; change or delete that one.`];
      else return sendPage(reply, subscriptionsView(v, await list(v.account.id), { created }), 201);
    }
    return sendPage(reply, subscriptionsView(v, await list(v.account.id), { form: new FormRender(form, problems) }), 422);
  });

  async function create(accountId: number, eventType: EventType, targetUrl: string, deliveryMode: DeliveryMode) {
    const secret = newSubscriptionSecret();
    try {
      const sub = await subs.create({
        accountId, eventType, targetUrl, deliveryMode, timeoutMs: TIMEOUT_MS.default, maxRetries: MAX_RETRIES.default,
        secretSealed: d.secrets.seal(secret), payloadTemplate: null,
      });
      return { sub, secret };
    } catch (err) {
      if (err instanceof SubscriptionExistsError) return err;
      throw err;
    }
  }

  app.get<{ Params: { sid: string } }>('/subscriptions/:sid', withSub(async (sub, req, reply) =>
    sendPage(reply, subscriptionView(viewerOf(req), sub, await outbox.listForSubscription(sub.id, { beforeId: null, limit: LOG_LIMIT }), queryOf(req).done))));

  app.post<{ Params: { sid: string } }>('/subscriptions/:sid/pause', withSub(async (sub, _req, reply) => {
    await subs.update(sub, { status: 'paused' });
    return back(reply, sub, 'subscription-paused');
  }));

  app.post<{ Params: { sid: string } }>('/subscriptions/:sid/resume', withSub(async (sub, _req, reply) => {
    await subs.update(sub, { status: 'active' });
    // Deliveries held while paused go out now.
    worker.wake();
    return back(reply, sub, 'subscription-resumed');
  }));

  app.post<{ Params: { sid: string } }>('/subscriptions/:sid/delete', withSub(async (sub, _req, reply) => {
    await subs.delete(sub);
    return reply.redirect('/dashboard/subscriptions?done=subscription-deleted', 303);
  }));

  app.post<{ Params: { sid: string } }>('/subscriptions/:sid/test', withSub(async (sub, _req, reply) => {
    await outbox.enqueueTest(sub);
    worker.wake();
    return back(reply, sub, 'test-event-queued');
  }));

  app.post<{ Params: { sid: string; delivery?: string } }>('/subscriptions/:sid/deliveries/:delivery/redeliver', withSub(async (sub, req, reply) => {
    if (!await outbox.redeliver(sub.id, req.params.delivery ?? '')) {
      return sendPage(reply, errorView(404, 'There is no such delivery on this subscription.', viewerOf(req)), 404);
    }
    worker.wake();
    return back(reply, sub, 'redelivery-queued');
  }));
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formOf, queryOf, sendPage, viewerOf, type Dashboard } from '../context.js';
import { FormRender } from '../forms.js';
import { CapacityExceededError, type Trunk } from '../../../store/trunks.js';
import { TrunkRevokedError, TrunkSettingsError } from '../../../trunks/service.js';
import { connectionFor, iceServersFor } from '../../../trunks/connection.js';
import { errors } from '../../errors.js';
import { NEW_TRUNK_FORM, readTrunkForm, trunkToForm } from '../trunk-form.js';
import { trunksDisabledView, trunksView } from '../views/trunks.js';
import { trunkView } from '../views/trunk.js';
import { trunkFormView } from '../views/trunk-form.js';
import { errorView } from '../views/auth.js';
import { JSSIP_ASSET_PATH } from '../jssip.js';

type IdReq = FastifyRequest<{ Params: { id: string } }>;

export function trunkRoutes(app: FastifyInstance, d: Dashboard): void {
  // Same gate as the API: without trunk access every trunk page explains why instead of showing data.
  app.addHook('preHandler', async (req, reply) => {
    const v = viewerOf(req);
    if (!v.account.trunking) return sendPage(reply, trunksDisabledView(v), 403);
  });

  /** Non-numeric and foreign IDs answer like a nonexistent trunk. */
  const load = async (req: IdReq, reply: FastifyReply): Promise<Trunk | undefined> => {
    const id = /^\d{1,15}$/.test(req.params.id) ? Number(req.params.id) : NaN;
    const t = Number.isSafeInteger(id) ? await d.store.trunks.getForAccount(viewerOf(req).account.id, id) : undefined;
    if (!t) void sendPage(reply, errorView(404, 'There is no such trunk on this account.', viewerOf(req)), 404);
    return t;
  };

  const detail = (req: FastifyRequest, reply: FastifyReply, t: Trunk, revealed: boolean) => {
    const c = connectionFor(t, d.trunks.password(t), d.config.sip);
    const ice = iceServersFor(t, d.config.turn, d.config.sip.host, d.clock.now());
    const jssipUrl = `${d.callServices.publicBaseUrl.replace(/\/+$/, '')}${JSSIP_ASSET_PATH}`;
    return sendPage(reply, trunkView(viewerOf(req), t, c, ice, { revealed, jssipUrl, notice: queryOf(req).done }));
  };

  app.get('/trunks', async (req, reply) => {
    const v = viewerOf(req);
    return sendPage(reply, trunksView(v, await d.store.trunks.listForAccount(v.account.id), { notice: queryOf(req).done, capacity: v.account.trunkCapacity }));
  });

  app.get('/trunks/new', async (req, reply) => sendPage(reply, trunkFormView(viewerOf(req), new FormRender(NEW_TRUNK_FORM), {})));

  app.post('/trunks', async (req, reply) => {
    const v = viewerOf(req);
    const form = formOf(req);
    const result = readTrunkForm(form, 'create');
    if (!result.ok) return sendPage(reply, trunkFormView(v, new FormRender(form, result.errors), {}), 422);
    try {
      const t = await d.trunks.create(v.account, result.transport, result.settings);
      return reply.redirect(`/dashboard/trunks/${t.id}?done=trunk-saved`, 303);
    } catch (err) {
      if (err instanceof TrunkSettingsError) return sendPage(reply, trunkFormView(v, new FormRender(form, err.errors), {}), 422);
      if (!(err instanceof CapacityExceededError)) throw err;
      const message = errors.trunkCapacityExceeded(err.capacity).opts.errors?.trunk?.[0] ?? 'Trunk capacity exceeded.';
      return sendPage(reply, trunkFormView(v, new FormRender(form), { problem: message }), 422);
    }
  });

  app.get<{ Params: { id: string } }>('/trunks/:id', async (req, reply) => {
    const t = await load(req, reply);
    return t ? detail(req, reply, t, false) : reply;
  });

  // A POST, not a link: revealing a long-lived credential should be a deliberate act that no prefetch can trigger.
  app.post<{ Params: { id: string } }>('/trunks/:id/reveal', async (req, reply) => {
    const t = await load(req, reply);
    return t ? detail(req, reply, t, t.status !== 'revoked') : reply;
  });

  app.get<{ Params: { id: string } }>('/trunks/:id/edit', async (req, reply) => {
    const t = await load(req, reply);
    return t ? sendPage(reply, trunkFormView(viewerOf(req), new FormRender(trunkToForm(t)), { trunkId: t.id })) : reply;
  });

  app.post<{ Params: { id: string } }>('/trunks/:id/edit', async (req, reply) => {
    const t = await load(req, reply);
    if (!t) return reply;
    const form = formOf(req);
    const result = readTrunkForm(form, 'update');
    if (!result.ok) return sendPage(reply, trunkFormView(viewerOf(req), new FormRender(form, result.errors), { trunkId: t.id }), 422);
    try {
      await d.trunks.update(t, result.settings);
    } catch (err) {
      if (err instanceof TrunkSettingsError) return sendPage(reply, trunkFormView(viewerOf(req), new FormRender(form, err.errors), { trunkId: t.id }), 422);
      if (!(err instanceof TrunkRevokedError)) throw err;
      return sendPage(reply, trunkFormView(viewerOf(req), new FormRender(form), { trunkId: t.id, problem: errors.trunkRevoked().message }), 409);
    }
    return reply.redirect(`/dashboard/trunks/${t.id}?done=trunk-saved`, 303);
  });

  app.post<{ Params: { id: string } }>('/trunks/:id/revoke', async (req, reply) => {
    const t = await load(req, reply);
    if (!t) return reply;
    await d.trunks.revoke(t);
    return reply.redirect(`/dashboard/trunks/${t.id}?done=trunk-revoked`, 303);
  });
}

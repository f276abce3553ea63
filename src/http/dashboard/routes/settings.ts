import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formOf, queryOf, sendPage, viewerOf, type Dashboard, type Viewer } from '../context.js';
import { FormRender, type FieldErrors } from '../forms.js';
import { OrgSettingsError } from '../../../org/settings.js';
import { settingsView } from '../views/settings.js';

export function settingsRoutes(app: FastifyInstance, d: Dashboard): void {
  const render = async (req: FastifyRequest, reply: FastifyReply, opts: { secret?: string; form?: FormRender; token?: string; status?: number } = {}) => {
    const v = viewerOf(req);
    const org = {
      org: await d.store.orgSettings.get(v.account.id),
      form: opts.form ?? new FormRender({}),
      ...(opts.token ? { newInjectionToken: opts.token } : {}),
    };
    return sendPage(reply, settingsView(v, { secret: opts.secret ?? null, notice: queryOf(req).done, org }), opts.status ?? 200);
  };

  /** Runs an allow-list change; its error is shown beside the field it came from. */
  const listChange = (field: string, change: (v: Viewer, value: string) => Promise<unknown>) => async (req: FastifyRequest, reply: FastifyReply) => {
    const form = formOf(req);
    try {
      await change(viewerOf(req), form[field] ?? '');
    } catch (err) {
      if (!(err instanceof OrgSettingsError)) throw err;
      const errors: FieldErrors = { [field]: [err.message] };
      return render(req, reply, { form: new FormRender(form, errors), status: 422 });
    }
    return reply.redirect('/dashboard/settings?done=saved', 303);
  };

  app.get('/settings', async (req, reply) => render(req, reply));

  app.post('/settings/signing-secret/reveal', async (req, reply) => render(req, reply, { secret: await d.signingSecrets.get(viewerOf(req).account.id) }));

  app.post('/settings/signing-secret/rotate', async (req, reply) => {
    await d.signingSecrets.rotate(viewerOf(req).account.id);
    return reply.redirect('/dashboard/settings?done=rotated', 303);
  });

  const listedIps = d.config.devAllowLocalTargets ? 'public-or-loopback' : 'public';
  app.post('/settings/hosts', listChange('host', (v, x) => d.store.orgSettings.allowHost(v.account.id, x, listedIps)));
  app.post('/settings/hosts/remove', listChange('host', (v, x) => d.store.orgSettings.removeHost(v.account.id, x)));
  app.post('/settings/ips', listChange('cidr', (v, x) => d.store.orgSettings.allowIp(v.account.id, x)));
  app.post('/settings/ips/remove', listChange('cidr', (v, x) => d.store.orgSettings.removeIp(v.account.id, x)));

  // The clear token is rendered in this response only; the store keeps its hash.
  app.post('/settings/injection-token', async (req, reply) =>
    render(req, reply, { token: await d.store.orgSettings.rotateInjectionToken(viewerOf(req).account.id), status: 201 }));
}

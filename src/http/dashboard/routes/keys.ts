import type { FastifyInstance } from 'fastify';
import { formOf, queryOf, sendPage, viewerOf, type Dashboard } from '../context.js';
import { FormRender } from '../forms.js';
import { keyNameProblem } from '../../../store/api-keys.js';
import { trimName } from '../../../names/index.js';
import { keysView } from '../views/keys.js';
import { errorView } from '../views/auth.js';

export function keyRoutes(app: FastifyInstance, d: Dashboard): void {
  const active = async (accountId: number) => (await d.store.apiKeys.listForAccount(accountId)).filter((k) => k.revokedAt === null);

  app.get('/keys', async (req, reply) => {
    const v = viewerOf(req);
    return sendPage(reply, keysView(v, await active(v.account.id), { notice: queryOf(req).done }));
  });

  // The clear key is rendered in this response only (never redirected through a URL, never stored).
  app.post('/keys', async (req, reply) => {
    const v = viewerOf(req);
    const form = formOf(req);
    const problem = keyNameProblem(form.name ?? '');
    const name = trimName(form.name ?? '');
    if (problem) return sendPage(reply, keysView(v, await active(v.account.id), { form: new FormRender(form, { name: [problem] }) }), 422);
    const { key } = await d.store.apiKeys.create(v.account.id, name);
    return sendPage(reply, keysView(v, await active(v.account.id), { created: key }), 201);
  });

  app.post<{ Params: { id: string } }>('/keys/:id/delete', async (req, reply) => {
    const v = viewerOf(req);
    const id = /^\d{1,15}$/.test(req.params.id) ? Number(req.params.id) : NaN;
    if (!Number.isSafeInteger(id) || !(await d.store.apiKeys.revoke(id, v.account.id))) {
      return sendPage(reply, errorView(404, 'No such active key on this account.', viewerOf(req)), 404);
    }
    return reply.redirect('/dashboard/keys?done=key-deleted', 303);
  });
}

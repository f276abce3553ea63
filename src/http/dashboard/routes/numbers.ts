import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formOf, queryOf, sendPage, viewerOf, type Dashboard } from '../context.js';
import { FormRender } from '../forms.js';
import { NumberError } from '../../../numbers/service.js';
import { formToPatch, settingsToForm } from '../number-form.js';
import { numberView } from '../views/number.js';
import { numbersView } from '../views/numbers.js';
import { errorView } from '../views/auth.js';
import { numberPath } from '../format.js';
import type { PhoneNumber } from '../../../numbers/repo.js';
import { prerenderNumberPrompts } from '../../../flows/number-prompts.js';

type NumberReq = FastifyRequest<{ Params: { e164: string } }>;

export function numberRoutes(app: FastifyInstance, d: Dashboard): void {
  const list = async (req: FastifyRequest, reply: FastifyReply, problem?: string) => {
    const v = viewerOf(req);
    return sendPage(reply, numbersView(v, await d.store.numbers.listForAccount(v.account.id), await d.store.numbers.listUnclaimed(),
      { notice: queryOf(req).done, ...(problem ? { problem } : {}) }), problem ? 409 : 200);
  };

  /** Another account's number answers exactly like a nonexistent one. */
  const owned = async (req: NumberReq, reply: FastifyReply): Promise<PhoneNumber | undefined> => {
    const n = await d.numbers.findOwned(viewerOf(req).account.id, req.params.e164);
    if (!n) void sendPage(reply, errorView(404, 'There is nothing at this address, or it belongs to another account.', viewerOf(req)), 404);
    return n;
  };

  app.get('/numbers', async (req, reply) => list(req, reply));

  app.post('/numbers/claim', async (req, reply) => {
    const e164 = formOf(req).number ?? '';
    try {
      await d.numbers.claim(e164, viewerOf(req).account.id);
    } catch (err) {
      if (!(err instanceof NumberError)) throw err;
      return list(req, reply, `${e164} is no longer available.`);
    }
    return reply.redirect(`${numberPath(e164)}?done=claimed`, 303);
  });

  app.get<{ Params: { e164: string } }>('/numbers/:e164', async (req, reply) => {
    const n = await owned(req, reply);
    if (!n) return reply;
    return sendPage(reply, numberView(viewerOf(req), n, new FormRender(settingsToForm(n.settings)), queryOf(req).done));
  });

  app.post<{ Params: { e164: string } }>('/numbers/:e164', async (req, reply) => {
    const n = await owned(req, reply);
    if (!n) return reply;
    const form = formOf(req);
    try {
      const saved = await d.numbers.update(n, formToPatch(form));
      void prerenderNumberPrompts(d.callServices.prompts ?? null, saved.settings);
    } catch (err) {
      if (!(err instanceof NumberError)) throw err;
      // The posted values are shown again as typed, with each message beside its field.
      return sendPage(reply, numberView(viewerOf(req), n, new FormRender(form, err.errors)), 422);
    }
    return reply.redirect(`${numberPath(n.e164)}?done=saved`, 303);
  });

  app.post<{ Params: { e164: string } }>('/numbers/:e164/release', async (req, reply) => {
    const n = await owned(req, reply);
    if (!n) return reply;
    await d.numbers.release(n.e164);
    return reply.redirect('/dashboard/numbers?done=released', 303);
  });
}

import type { FastifyInstance } from 'fastify';
import { formOf, queryOf, sendPage, viewerOf, type Dashboard } from '../context.js';
import { FormRender, type FieldErrors } from '../forms.js';
import { E164 } from '../../../numbers/settings.js';
import { simulateInbound, type SimulationEvent } from '../../../calls/simulator.js';
import { testCallView } from '../views/test-call.js';

const DEFAULT_MAX_SECONDS = 60;
const MAX_SECONDS = 300;

export function testCallRoutes(app: FastifyInstance, d: Dashboard): void {
  // One test call per account at a time: each holds a request open until the call ends.
  const running = new Set<number>();
  const numbersOf = (accountId: number) => d.store.numbers.listForAccount(accountId).map((n) => n.e164);

  app.get('/test-call', async (req, reply) => {
    const v = viewerOf(req);
    const q = queryOf(req);
    const form = { to: q.to ?? '', from: '+15557770001', digits: '', max_seconds: String(DEFAULT_MAX_SECONDS) };
    return sendPage(reply, testCallView(v, new FormRender(form), numbersOf(v.account.id)));
  });

  app.post('/test-call', async (req, reply) => {
    const v = viewerOf(req);
    const form = formOf(req);
    const errors: FieldErrors = {};
    const to = form.to ?? '';
    const from = (form.from ?? '').trim();
    const digits = (form.digits ?? '').trim().split(/\s+/).filter(Boolean);
    const maxRaw = (form.max_seconds ?? '').trim();
    const maxSeconds = maxRaw === '' ? DEFAULT_MAX_SECONDS : Number(maxRaw);
    if (!d.numbers.findOwned(v.account.id, to)) errors.to = ['Choose one of your numbers.'];
    if (!E164.test(from)) errors.from = ['Must be an E.164 number such as +15557770001.'];
    if (digits.length > 20 || digits.some((x) => !/^[0-9*#]{1,32}$/.test(x))) errors.digits = ['Use only 0-9, * and #, at most 20 groups of 32.'];
    if (!Number.isInteger(maxSeconds) || maxSeconds < 1 || maxSeconds > MAX_SECONDS) errors.max_seconds = [`A whole number of seconds from 1 to ${MAX_SECONDS}.`];
    if (running.has(v.account.id)) errors.to = ['A test call is already running for this account; wait for it to end.'];
    const numbers = numbersOf(v.account.id);
    if (Object.keys(errors).length > 0) return sendPage(reply, testCallView(v, new FormRender(form, errors), numbers), 422);

    running.add(v.account.id);
    const events: SimulationEvent[] = [];
    try {
      const { callSid } = await simulateInbound(d.simulator, d.callServices.watch, { from, to, digits, maxSeconds }, (e) => events.push(e));
      return sendPage(reply, testCallView(v, new FormRender(form), numbers, { callSid, events }));
    } finally {
      running.delete(v.account.id);
    }
  });
}

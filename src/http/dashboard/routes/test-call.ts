import type { FastifyInstance } from 'fastify';
import { formOf, queryOf, sendPage, viewerOf, type Dashboard } from '../context.js';
import { FormRender, type FieldErrors } from '../forms.js';
import { E164 } from '../../../numbers/settings.js';
import { SAID_MAX } from '../../../calls/simulator.js';
import { textProblem } from '../../../names/index.js';
import { TestCallRuns } from '../test-call-runs.js';
import { testCallLive, testCallView } from '../views/test-call.js';

const DEFAULT_MAX_SECONDS = 60;
const MAX_SECONDS = 300;

export function testCallRoutes(app: FastifyInstance, d: Dashboard): void {
  const runs = new TestCallRuns(d.simulator, d.callServices.watch, app.log);
  const numbersOf = async (accountId: number) => (await d.store.numbers.listForAccount(accountId)).map((n) => n.e164);

  app.get('/test-call', async (req, reply) => {
    const v = viewerOf(req);
    const q = queryOf(req);
    const last = runs.latest(v.account.id);
    const form = { to: q.to ?? last?.request.to ?? '', from: last?.request.from ?? '+15557770001',
      digits: last?.request.digits.join(' ') ?? '', say: last?.request.speech?.join('; ') ?? '', max_seconds: String(last?.request.maxSeconds ?? DEFAULT_MAX_SECONDS) };
    return sendPage(reply, testCallView(v, new FormRender(form), await numbersOf(v.account.id), last));
  });

  // The transcript alone, polled by the page while the call runs.
  app.get('/test-call/live', async (req, reply) => sendPage(reply, testCallLive(runs.latest(viewerOf(req).account.id))));

  app.post('/test-call', async (req, reply) => {
    const v = viewerOf(req);
    const form = formOf(req);
    const errors: FieldErrors = {};
    const to = form.to ?? '';
    const from = (form.from ?? '').trim();
    const digits = (form.digits ?? '').trim().split(/\s+/).filter(Boolean);
    const speech = (form.say ?? '').split(';').map((x) => x.trim()).filter(Boolean);
    const maxRaw = (form.max_seconds ?? '').trim();
    const maxSeconds = maxRaw === '' ? DEFAULT_MAX_SECONDS : Number(maxRaw);
    if (!await d.numbers.findOwned(v.account.id, to)) errors.to = ['Choose one of your numbers.'];
    if (!E164.test(from)) errors.from = ['Must be an E.164 number such as +15557770001.'];
    if (digits.length > 20 || digits.some((x) => !/^[0-9*#]{1,32}$/.test(x))) errors.digits = ['Use only 0-9, * and #, at most 20 groups of 32.'];
    if (speech.length > 20 || speech.some((x) => textProblem(x, SAID_MAX) !== null)) {
      errors.say = [`Plain words, at most 20 answers of ${SAID_MAX} characters.`];
    }
    if (!Number.isInteger(maxSeconds) || maxSeconds < 1 || maxSeconds > MAX_SECONDS) errors.max_seconds = [`A whole number of seconds from 1 to ${MAX_SECONDS}.`];
    if (runs.running(v.account.id)) errors.to = ['A test call is already running for this account; wait for it to end.'];
    if (Object.keys(errors).length > 0) return sendPage(reply, testCallView(v, new FormRender(form, errors), await numbersOf(v.account.id), runs.latest(v.account.id)), 422);
    runs.start(v.account.id, { from, to, digits, speech, maxSeconds });
    return reply.redirect('/dashboard/test-call', 303);
  });
}

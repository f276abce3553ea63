// Queues and agents in the dashboard: the queues' live figures and every agent's state, forms to add both, and
// each agent's console (status, the offered call's screen pop, the wrap-up disposition, the wss seat's softphone).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formOf, queryOf, sendPage, viewerOf, type Dashboard } from '../context.js';
import { FormRender } from '../forms.js';
import { errorView } from '../views/auth.js';
import { queuesLive, queuesView } from '../views/acd.js';
import { agentLive, agentView, type ScreenPop } from '../views/agent-console.js';
import { DEFAULT_QUEUE_SETTINGS, QueueNameTakenError } from '../../../acd/queues.js';
import type { Agent, AgentStatus } from '../../../acd/agents.js';
import { newSid } from '../../../crypto/tokens.js';
import { connectionFor, iceServersFor } from '../../../trunks/connection.js';
import { calledTarget } from '../../place-request.js';
import { NAME_LIMITS, nameProblem, TEXT_LIMITS, textProblem, trimName } from '../../../names/index.js';
import { accountNumberOn, type MonitorMode } from '../../../acd/service.js';
import { errors as apiErrors } from '../../errors.js';

/** The one name rule (src/names) as the forms say it; `ask` says what to enter. */
const nameFault = (value: string, max: number, ask: string) => {
  const problem = nameProblem(value, max);
  return problem ? `${ask} of 1 to ${max} characters of visible text on one line; this one ${problem}.` : null;
};
/**
 * The console runs this site's scripts only (the softphone and the JsSIP Ringbase serves) and connects only here and
 * to its own seat's wss listener (another origin: the SIP server's), named rather than any wss: host. CSP has no
 * syntax for an IPv6 literal, so a seat on one is named nowhere (docs/security.md says so).
 */
function consoleCsp(wssUrl: string | null): string {
  const wss = wssUrl ? new URL(wssUrl).origin : '';
  const connect = /^wss:\/\/[A-Za-z0-9.-]+(:\d+)?$/.test(wss) ? `'self' ${wss}` : "'self'";
  return `default-src 'self'; script-src 'self'; connect-src ${connect}; media-src 'self' blob: mediastream:; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
}
type AgentRequest = FastifyRequest<{ Params: { sid: string } }>;
const trunkingOff = apiErrors.trunkingDisabled();

export function acdRoutes(app: FastifyInstance, d: Dashboard): void {
  const { store } = d;
  const acd = d.callServices.acd;

  const live = async (accountId: number) => {
    const queues = await store.queues.listForAccount(accountId, { beforeId: null, limit: 200 });
    const names = new Map(queues.map((q) => [q.sid, q.friendlyName]));
    const lines = [];
    for (const q of queues) lines.push({ q, f: await store.queues.figures(q) });
    return queuesLive(lines, await store.agents.listForAccount(accountId, {}, { beforeId: null, limit: 500 }), (sid) => names.get(sid) ?? sid);
  };
  const queuesPage = async (req: FastifyRequest, reply: FastifyReply, forms: { queue?: FormRender; agent?: FormRender } = {}, status = 200) => {
    const v = viewerOf(req);
    const seats = (await store.trunks.listForAccount(v.account.id)).filter((t) => t.status !== 'revoked');
    const queues = await store.queues.listForAccount(v.account.id, { beforeId: null, limit: 200 });
    return sendPage(reply, queuesView(v, await live(v.account.id), { queue: forms.queue ?? new FormRender({}), agent: forms.agent ?? new FormRender({}) }, seats, queues, queryOf(req).done), status);
  };

  app.get('/queues', async (req, reply) => queuesPage(req, reply));
  app.get('/queues/live', async (req, reply) => sendPage(reply, await live(viewerOf(req).account.id)));

  app.post('/queues', async (req, reply) => {
    const v = viewerOf(req);
    const form = formOf(req);
    const name = trimName(form.friendly_name ?? '');
    const problem = nameFault(form.friendly_name ?? '', NAME_LIMITS.queue, 'Enter a name');
    if (problem) return queuesPage(req, reply, { queue: new FormRender(form, { friendly_name: [problem] }) }, 422);
    try {
      await store.queues.create(v.account.id, newSid('QU'), { ...DEFAULT_QUEUE_SETTINGS, friendlyName: name });
    } catch (err) {
      if (!(err instanceof QueueNameTakenError)) throw err;
      return queuesPage(req, reply, { queue: new FormRender(form, { friendly_name: [`A queue named ${name} already exists.`] }) }, 409);
    }
    return reply.redirect('/dashboard/queues?done=queue-created', 303);
  });

  app.post('/agents', async (req, reply) => {
    const v = viewerOf(req);
    const form = formOf(req);
    // Seats are trunks: without trunk access, the same 403 as the trunk pages and API.
    if (!v.account.trunking) return queuesPage(req, reply, { agent: new FormRender(form, { trunk_id: [trunkingOff.message] }) }, 403);
    const name = trimName(form.friendly_name ?? '');
    const seat = /^\d{1,15}$/.test(form.trunk_id ?? '') ? await store.trunks.getForAccount(v.account.id, Number(form.trunk_id)) : undefined;
    const queue = form.queue ? await store.queues.find(v.account.id, form.queue) : undefined;
    const errors: Record<string, string[]> = {};
    const problem = nameFault(form.friendly_name ?? '', NAME_LIMITS.agent, 'Enter a name');
    if (problem) errors.friendly_name = [problem];
    if (!seat || seat.status === 'revoked') errors.trunk_id = ['Choose a seat: a trunk of this account that is not revoked.'];
    if (form.queue && !queue) errors.queue = ['Choose a queue from the list.'];
    if (Object.keys(errors).length > 0) return queuesPage(req, reply, { agent: new FormRender(form, errors) }, 422);
    const agent = await store.agents.create(v.account.id, newSid('AG'), { friendlyName: name, trunkId: seat!.id, queueIds: queue ? [queue.id] : [], status: 'offline', breakReason: null });
    return reply.redirect(`/dashboard/agents/${agent.sid}?done=agent-created`, 303);
  });

  async function load(req: AgentRequest, reply: FastifyReply): Promise<Agent | undefined> {
    const a = /^AG[0-9a-f]{32}$/.test(req.params.sid) ? await store.agents.getForAccount(viewerOf(req).account.id, req.params.sid) : undefined;
    if (!a) void sendPage(reply, errorView(404, 'There is no such agent on this account.', viewerOf(req)), 404);
    return a;
  }

  /** The call the agent is offered, on, or wrapping up, as the agent needs to see it. */
  async function screenPop(a: Agent): Promise<ScreenPop | null> {
    const call = a.currentCallSid ? await store.calls.get(a.currentCallSid) : undefined;
    if (!call) return null;
    const timeline = await store.calls.timeline(call.sid);
    const queued = timeline.find((e) => e.kind === 'queued');
    const bridged = timeline.find((e) => e.kind === 'queue-bridged');
    const callback = await store.scheduledCallbacks.forCall(call.sid);
    return {
      callSid: call.sid, from: callback ? callback.to : call.from, queue: (queued?.detail.queue as string | undefined) ?? callback?.queueName ?? null,
      waitSeconds: (bridged?.detail.wait_seconds as number | undefined) ?? null, attributes: callback?.attributes ?? {},
    };
  }
  const agentLivePart = async (req: FastifyRequest, a: Agent, forms: { wrapUp?: FormRender; supervise?: FormRender } = {}) =>
    agentLive(viewerOf(req), a, await screenPop(a), a.activity === 'wrap-up' ? forms.wrapUp ?? new FormRender({}) : null, forms.supervise ?? null);
  const agentPage = async (req: FastifyRequest, reply: FastifyReply, a: Agent, forms: { wrapUp?: FormRender; supervise?: FormRender }, status: number) =>
    sendPage(reply, agentView(viewerOf(req), a, await store.trunks.getForAccount(a.accountId, a.trunkId), await agentLivePart(req, a, forms), []), status);

  app.get<{ Params: { sid: string } }>('/agents/:sid', async (req, reply) => {
    const a = await load(req, reply);
    if (!a) return reply;
    const seat = await store.trunks.getForAccount(a.accountId, a.trunkId);
    const ice = seat ? iceServersFor(seat, d.config.turn, d.config.sip.host, d.clock.now()) : [];
    void reply.header('content-security-policy', consoleCsp(seat ? connectionFor(seat, null, d.config.sip).wss_url : null));
    return sendPage(reply, agentView(viewerOf(req), a, seat, await agentLivePart(req, a), ice, queryOf(req).done));
  });
  app.get<{ Params: { sid: string } }>('/agents/:sid/live', async (req, reply) => {
    const a = await load(req, reply);
    return a ? sendPage(reply, await agentLivePart(req, a)) : reply;
  });

  app.post<{ Params: { sid: string } }>('/agents/:sid/status', async (req, reply) => {
    const a = await load(req, reply);
    if (!a) return reply;
    const status = formOf(req).status as AgentStatus;
    if (!['available', 'break', 'offline'].includes(status)) return sendPage(reply, errorView(400, 'Choose available, break or offline.', viewerOf(req)), 400);
    const queueIds = await acd.router.queuesOf(a.id);
    await store.agents.update(a, { friendlyName: a.friendlyName, trunkId: a.trunkId, queueIds, status, breakReason: null });
    await acd.agentChanged(a.id, status);
    return reply.redirect(`/dashboard/agents/${a.sid}?done=agent-status`, 303);
  });

  app.post<{ Params: { sid: string } }>('/agents/:sid/disposition', async (req, reply) => {
    const a = await load(req, reply);
    if (!a) return reply;
    const form = formOf(req);
    const disposition = trimName(form.disposition ?? '');
    const notes = (form.notes ?? '').trim();
    const call = form.call_sid ? await store.calls.getForAccount(a.accountId, form.call_sid) : undefined;
    const errors: Record<string, string[]> = {};
    const outcome = nameFault(form.disposition ?? '', NAME_LIMITS.disposition, 'Enter the outcome');
    if (outcome) errors.disposition = [outcome];
    const notesProblem = textProblem(notes, TEXT_LIMITS.dispositionNotes);
    if (notesProblem) errors.notes = [`The notes ${notesProblem}.`];
    if (!call) errors.disposition = [...(errors.disposition ?? []), 'This call is no longer on the agent: reload the page.'];
    if (Object.keys(errors).length > 0) return agentPage(req, reply, a, { wrapUp: new FormRender(form, errors) }, 422);
    await acd.dispose(a.accountId, call!, disposition, notes === '' ? null : notes);
    return reply.redirect(`/dashboard/agents/${a.sid}?done=disposition-saved`, 303);
  });

  // The supervisor's own phone is called into the agent's call, as POST /v1/agents/{sid}/monitor does.
  app.post<{ Params: { sid: string } }>('/agents/:sid/monitor', async (req, reply) => {
    const a = await load(req, reply);
    if (!a) return reply;
    const form = formOf(req);
    const mode = form.mode as MonitorMode;
    const refuse = (field: string, message: string, status = 422) => agentPage(req, reply, a, { supervise: new FormRender(form, { [field]: [message] }) }, status);
    if (!['monitor', 'whisper', 'barge'].includes(mode)) return refuse('mode', 'Choose listen, whisper or barge.');
    const vetted = await calledTarget(d.callServices, a.accountId, (form.to ?? '').trim());
    if (!vetted.ok) return refuse('to', vetted.problem);
    const onCall = a.activity === 'busy' && a.currentCallSid ? await store.calls.get(a.currentCallSid) : undefined;
    const number = onCall ? await store.numbers.getByE164(accountNumberOn(onCall)) : undefined;
    const placed = onCall && number?.accountId === a.accountId
      ? await acd.monitor(a, { target: vetted.target, to: form.to!.trim(), from: number.e164, numberId: number.id, mode }) : null;
    if (!placed) return refuse('to', 'The agent is not on a call this server carries any more.', 409);
    // Tracked like every call flow, so a shutdown drains the supervisor's call too.
    void d.dispatcher.track(placed.done);
    return reply.redirect(`/dashboard/agents/${a.sid}?done=supervisor-called`, 303);
  });

  // The softphone's credentials: a POST (CSRF-checked, never cached), so no link or prefetch can read them.
  app.post<{ Params: { sid: string } }>('/agents/:sid/seat', async (req, reply) => {
    const a = await load(req, reply);
    if (!a) return reply;
    if (!viewerOf(req).account.trunking) return reply.status(403).type('application/json').send({ error: trunkingOff.message });
    const seat = await store.trunks.getForAccount(a.accountId, a.trunkId);
    if (!seat || seat.transport !== 'wss' || seat.status === 'revoked') return reply.status(409).type('application/json').send({ error: 'the agent has no usable wss seat' });
    const c = connectionFor(seat, d.trunks.password(seat), d.config.sip);
    return reply.type('application/json').send({ wss_url: c.wss_url, username: c.username, sip_domain: c.sip_domain, password: c.password });
  });
}

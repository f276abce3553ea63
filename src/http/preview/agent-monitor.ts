// POST /v1/agents/{sid}/monitor: a supervisor's phone is called into the busy agent's call to listen, whisper to
// the agent, or barge in (src/acd/service.ts monitor; docs/acd.md).
import type { FastifyInstance } from 'fastify';
import type { PlatformServices } from '../platform-services.js';
import type { CallDispatcher } from '../../flows/dispatcher.js';
import type { CallsPerSecondCap } from '../../calls/cps-limiter.js';
import { errors, previewErrors } from '../errors.js';
import { acceptFormBodies } from '../form-bodies.js';
import { SidParams, previewErrorResponses } from '../schemas/preview.js';
import { MonitorBody, MonitorResource, type MonitorInput } from '../schemas/preview-acd.js';
import { callerNumber, calledTarget } from './call-parties.js';
import { accountNumberOn } from '../../acd/service.js';
import type { CallForwarding } from '../cluster/forwarding.js';

const tags = ['Queues and agents (preview)'];
const security = [{ bearerAuth: [] }];

export async function agentMonitorRoutes(app: FastifyInstance, deps: { services: PlatformServices; dispatcher: CallDispatcher; cps: CallsPerSecondCap; forwarding: CallForwarding }): Promise<void> {
  acceptFormBodies(app);
  const { services, dispatcher, cps } = deps;
  const { store } = services;

  app.post<{ Params: { sid: string }; Body: MonitorInput }>('/v1/agents/:sid/monitor', {
    schema: {
      tags, security, summary: "Call a supervisor into a busy agent's call: monitor (listen), whisper (to the agent) or barge",
      params: SidParams, body: MonitorBody, response: { 201: MonitorResource, ...previewErrorResponses(404, 409, 503) },
    },
  }, async (req, reply) => {
    const agent = await store.agents.getForAccount(req.account.id, req.params.sid);
    if (!agent) throw errors.notFound('Agent');
    const b = req.body;
    const mode = b.mode ?? 'monitor';
    const onCall = agent.activity === 'busy' && agent.currentCallSid ? await store.calls.get(agent.currentCallSid) : undefined;
    if (!onCall) throw previewErrors.conflict('agent_not_on_call', `${agent.friendlyName} is not talking on a call (${agent.activity}); a supervisor joins a busy agent's call.`);
    // The supervisor's call is placed by the node carrying the agent's call (it bridges into its room).
    if (await deps.forwarding.elsewhere(req, reply, onCall)) return reply;
    const number = await callerNumber(services, req.account.id, b.from ?? accountNumberOn(onCall));
    const target = await calledTarget(services, req.account.id, b.to);
    const slot = await cps.take(req.account.id, req.account.cpsCap);
    if (!slot.ok) throw errors.callsPerSecondExceeded(req.account.cpsCap, slot.retryAfterSeconds, slot.resetAt);
    const placed = await services.acd.monitor(agent, { target, to: b.to, from: number.e164, numberId: number.id, mode });
    if (!placed) throw previewErrors.conflict('agent_not_on_call', `${agent.friendlyName}'s call is not carried by this server; try again on the one that carries it.`);
    void dispatcher.track(placed.done);
    return reply.status(201).send({ call_sid: placed.call.sid, agent_sid: agent.sid, monitored_call_sid: onCall.sid, mode, to: b.to, status: 'queued' as const });
  });
}

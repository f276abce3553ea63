// /v1/agents: the people the ACD offers calls to: their seat, queues, status (theirs) and activity (the platform's).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Store } from '../../repositories.js';
import type { Account } from '../../store/accounts.js';
import type { Agent, AgentFields } from '../../acd/agents.js';
import type { AcdService } from '../../acd/service.js';
import { newSid } from '../../crypto/tokens.js';
import { errors, previewErrors } from '../errors.js';
import { acceptFormBodies } from '../form-bodies.js';
import { SidParams, previewErrorResponses } from '../schemas/preview.js';
import {
  AgentCreateBody, AgentList, AgentListQuery, AgentResource, AgentUpdateBody, type AgentCreateInput, type AgentListInput, type AgentUpdateInput,
} from '../schemas/preview-acd.js';
import { fetchPageAsync, pageRequest } from './pagination.js';

const tags = ['Queues and agents (preview)'];
const security = [{ bearerAuth: [] }];
type SidRequest = FastifyRequest<{ Params: { sid: string } }>;

function view(a: Agent) {
  return {
    sid: a.sid, friendly_name: a.friendlyName, trunk_id: a.trunkId, queues: a.queueSids, status: a.status, break_reason: a.breakReason,
    activity: a.activity, current_call_sid: a.currentCallSid, date_created: a.createdAt, date_updated: a.updatedAt,
  };
}

export async function agentRoutes(app: FastifyInstance, deps: { store: Store; acd: Pick<AcdService, 'agentChanged'> }): Promise<void> {
  acceptFormBodies(app);
  const { store, acd } = deps;

  async function load(req: SidRequest): Promise<Agent> {
    const agent = await store.agents.getForAccount(req.account.id, req.params.sid);
    if (!agent) throw errors.notFound('Agent');
    return agent;
  }

  /** The seat must be one of the account's trunks that can still register (not revoked), under trunk access (as the trunk API). */
  async function seat(account: Account, trunkId: number): Promise<number> {
    if (!account.trunking) throw errors.trunkingDisabled();
    const trunk = await store.trunks.getForAccount(account.id, trunkId);
    if (!trunk || trunk.status === 'revoked') throw previewErrors.parameterInvalid('trunk_id', `The trunk_id ${trunkId} is not a trunk or seat of this account that can register.`);
    return trunk.id;
  }

  async function queueIds(accountId: number, refs: string[]): Promise<number[]> {
    const ids: number[] = [];
    for (const ref of refs) {
      const queue = await store.queues.find(accountId, ref);
      if (!queue) throw previewErrors.parameterInvalid('queues', `No queue is named or has the sid ${JSON.stringify(ref)}.`);
      ids.push(queue.id);
    }
    return ids;
  }

  app.post<{ Body: AgentCreateInput }>('/v1/agents', {
    schema: { tags, security, summary: 'Create an agent (offline until it chooses available)', body: AgentCreateBody, response: { 201: AgentResource, ...previewErrorResponses(403) } },
  }, async (req, reply) => {
    const b = req.body;
    const fields: AgentFields = {
      friendlyName: b.friendly_name, trunkId: await seat(req.account, b.trunk_id), queueIds: await queueIds(req.account.id, b.queues ?? []),
      status: 'offline', breakReason: null,
    };
    return reply.status(201).send(view(await store.agents.create(req.account.id, newSid('AG'), fields)));
  });

  app.get<{ Querystring: AgentListInput }>('/v1/agents', {
    schema: { tags, security, summary: 'List agents, newest first; filters queue and status', querystring: AgentListQuery, response: { 200: AgentList, ...previewErrorResponses() } },
  }, async (req) => {
    const q = req.query;
    const queue = q.queue === undefined ? undefined : await store.queues.find(req.account.id, q.queue);
    if (q.queue !== undefined && !queue) throw previewErrors.parameterInvalid('queue', `No queue is named or has the sid ${JSON.stringify(q.queue)}.`);
    const filter = { ...(queue ? { queueId: queue.id } : {}), ...(q.status ? { status: q.status } : {}) };
    return fetchPageAsync(pageRequest(q), (p) => store.agents.listForAccount(req.account.id, filter, p), view);
  });

  app.get<{ Params: { sid: string } }>('/v1/agents/:sid', {
    schema: { tags, security, summary: 'Fetch an agent', params: SidParams, response: { 200: AgentResource, ...previewErrorResponses(404) } },
  }, async (req) => view(await load(req)));

  app.post<{ Params: { sid: string }; Body: AgentUpdateInput }>('/v1/agents/:sid', {
    schema: { tags, security, summary: "Update an agent; status is the agent's choice (offline, available, break)", params: SidParams, body: AgentUpdateBody, response: { 200: AgentResource, ...previewErrorResponses(403, 404) } },
  }, async (req) => {
    const agent = await load(req);
    const b = req.body;
    const status = b.status ?? agent.status;
    const fields: AgentFields = {
      friendlyName: b.friendly_name ?? agent.friendlyName,
      trunkId: b.trunk_id === undefined ? agent.trunkId : await seat(req.account, b.trunk_id),
      // The agent's queues are named by sid, so every one is found.
      queueIds: await queueIds(req.account.id, b.queues ?? agent.queueSids),
      status,
      // A reason belongs to a break: choosing another status clears it.
      breakReason: status === 'break' ? (b.break_reason === undefined ? agent.breakReason : b.break_reason) : null,
    };
    const updated = await store.agents.update(agent, fields);
    // Newly available, or serving other queues: callers waiting there may be offered to it now.
    await acd.agentChanged(updated.id, updated.status);
    return view(updated);
  });

  app.delete<{ Params: { sid: string } }>('/v1/agents/:sid', {
    schema: { tags, security, summary: 'Delete an agent (refused while it is offered or on a call)', params: SidParams, response: { 204: { type: 'null', description: 'Deleted.' }, ...previewErrorResponses(404, 409) } },
  }, async (req, reply) => {
    const agent = await load(req);
    if (!(await store.agents.deleteIfFree(agent))) throw previewErrors.conflict('agent_on_call', `${agent.friendlyName} is on a call (${agent.activity}); delete the agent once it has ended.`);
    return reply.status(204).send();
  });
}

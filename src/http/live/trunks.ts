import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import type { Store } from '../../repositories.js';
import { CapacityExceededError, type Trunk, type TrunkSettings, SETTING_COLUMNS } from '../../store/trunks.js';
import { TrunkRevokedError, TrunkSettingsError, type TrunkService } from '../../trunks/service.js';
import { connectionFor, iceServersFor } from '../../trunks/connection.js';
import { errors } from '../errors.js';
import {
  TrunkConnectionResponse, TrunkCreateBody, TrunkList, TrunkUpdateBody, TrunkWithConnection,
  type TrunkCreateInput, type TrunkUpdateInput,
} from '../schemas/trunk.js';

interface Deps { config: Config; store: Store; trunks: TrunkService; clock: Clock }

const IdParams = Type.Object({ id: Type.String() });
const errorResponses = {
  401: { $ref: 'LiveError#' }, 403: { $ref: 'LiveError#' }, 404: { $ref: 'LiveMessage#' },
  // too_many_auth_failures: invalid keys from an address past its limit (src/http/auth.ts).
  429: { $ref: 'LiveError#' },
};
const tags = ['Trunks (live)'];
const security = [{ bearerAuth: [] }];

function summary(t: Trunk) {
  const { accountId: _a, sipPasswordSealed: _p, updated_at: _u, ...fields } = t;
  return fields;
}

function pickSettings(body: TrunkUpdateInput): Partial<TrunkSettings> {
  const out: Record<string, unknown> = {};
  for (const name of SETTING_COLUMNS) if (body[name] !== undefined) out[name] = body[name];
  return out as Partial<TrunkSettings>;
}

export async function trunkRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const { store, trunks, config, clock } = deps;

  app.addHook('preHandler', (req, _reply, done) => {
    if (!req.account.trunking) done(errors.trunkingDisabled());
    else done();
  });

  // Non-numeric and foreign IDs answer exactly like a nonexistent trunk, so IDs leak nothing.
  async function load(req: FastifyRequest<{ Params: { id: string } }>): Promise<Trunk> {
    const id = /^\d{1,15}$/.test(req.params.id) ? Number(req.params.id) : NaN;
    const trunk = Number.isSafeInteger(id) ? await store.trunks.getForAccount(req.account.id, id) : undefined;
    if (!trunk) throw errors.notFound('Trunk');
    return trunk;
  }

  const withConnection = (t: Trunk) => ({ ...summary(t), connection: connectionFor(t, trunks.password(t), config.sip) });

  // The store hands out one frozen object per trunk (and per account's list) until it changes, so their JSON is
  // kept beside them: a changed trunk is a new object, and its old text is never found.
  const fetchedJson = new WeakMap<Trunk, string>();
  const listedJson = new WeakMap<readonly Trunk[], string>();
  function sendJson<K extends object>(reply: FastifyReply, texts: WeakMap<K, string>, key: K, body: (k: K) => unknown) {
    let text = texts.get(key);
    if (text === undefined) {
      text = reply.serialize(body(key)) as string;
      texts.set(key, text);
    }
    return reply.type('application/json; charset=utf-8').send(text);
  }

  app.get('/api/partner/trunks', {
    schema: { tags, security, summary: 'List trunks, newest first, all in one response', response: { 200: TrunkList, ...errorResponses } },
  }, async (req, reply) => sendJson(reply, listedJson, await store.trunks.listForAccount(req.account.id), (list) => ({ data: list.map(summary) })));

  app.post<{ Body: TrunkCreateInput }>('/api/partner/trunks', {
    preValidation: async (req) => { req.body ??= {}; },
    schema: {
      tags, security, summary: 'Create a trunk (status pending)', body: TrunkCreateBody,
      response: { 201: TrunkWithConnection, 422: { $ref: 'LiveValidationError#' }, ...errorResponses },
    },
  }, async (req, reply) => {
    try {
      const trunk = await trunks.create(req.account, req.body.transport ?? 'tcp', pickSettings(req.body));
      return reply.status(201).send(withConnection(trunk));
    } catch (err) {
      if (err instanceof CapacityExceededError) throw errors.trunkCapacityExceeded(err.capacity);
      if (err instanceof TrunkSettingsError) throw errors.validation(err.errors);
      throw err;
    }
  });

  app.get<{ Params: { id: string } }>('/api/partner/trunks/:id', {
    schema: { tags, security, summary: 'Fetch a trunk with its connection', params: IdParams, response: { 200: TrunkWithConnection, ...errorResponses } },
  }, async (req, reply) => sendJson(reply, fetchedJson, await load(req), withConnection));

  const update = async (req: FastifyRequest<{ Params: { id: string }; Body: TrunkUpdateInput }>) => {
    const trunk = await load(req);
    try {
      return withConnection(await trunks.update(trunk, pickSettings(req.body)));
    } catch (err) {
      if (err instanceof TrunkRevokedError) throw errors.trunkRevoked();
      if (err instanceof TrunkSettingsError) throw errors.validation(err.errors);
      throw err;
    }
  };
  for (const method of ['PUT', 'PATCH'] as const) {
    app.route<{ Params: { id: string }; Body: TrunkUpdateInput }>({
      method,
      url: '/api/partner/trunks/:id',
      preValidation: async (req) => { req.body ??= {}; },
      schema: {
        tags, security, params: IdParams, body: TrunkUpdateBody,
        summary: 'Update a trunk: only the listed fields; immutable and unknown fields are ignored',
        response: { 200: TrunkWithConnection, 409: { $ref: 'LiveError#' }, 422: { $ref: 'LiveValidationError#' }, ...errorResponses },
      },
      handler: update,
    });
  }

  app.delete<{ Params: { id: string } }>('/api/partner/trunks/:id', {
    schema: {
      tags, security, params: IdParams, summary: 'Revoke a trunk (soft delete; history kept)',
      response: { 200: Type.Object({ status: Type.Literal('revoked') }), ...errorResponses },
    },
  }, async (req) => {
    await trunks.revoke(await load(req));
    return { status: 'revoked' as const };
  });

  app.get<{ Params: { id: string } }>('/api/partner/trunks/:id/connection', {
    schema: {
      tags, security, params: IdParams, summary: 'Connection details with fresh ICE servers (wss trunks only)',
      response: { 200: TrunkConnectionResponse, ...errorResponses },
    },
  }, async (req) => {
    const trunk = await load(req);
    if (trunk.transport !== 'wss') throw errors.notFound('Connection for a wss trunk');
    const c = connectionFor(trunk, trunks.password(trunk), config.sip);
    return {
      wss_url: c.wss_url, sip_domain: c.sip_domain, username: c.username, password: c.password,
      secret_available: c.secret_available,
      ice_servers: iceServersFor(trunk, config.turn, config.sip.host, clock.now()),
    };
  });
}

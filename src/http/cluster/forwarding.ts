// Several control planes on one database: a command for a call (hang it up, redirect it, control its recording,
// mute its participant, monitor its agent) runs in the process carrying the call, which holds its legs. Any node
// takes the request; one that does not carry the call forwards it, signed, to the owner's advertised address and
// sends back the owner's answer as it came. An owner that is dead, or does not answer, gives the documented 503.
// A draining node forwards new work (a call to place) to a live node that is not draining, the same way.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import type { Clock } from '../../clock.js';
import type { CallRecord } from '../../store/calls.js';
import { deadInstances, type InstanceRepo, type Liveness } from '../../recovery/index.js';
import { errors } from '../errors.js';
import { bodyMatches, bodyText, checkForward, FORWARDED_BY_HEADER, forwardHeaders } from './forward-signature.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The peer control plane that forwarded this request (checked), or null for a client's own request. */
    forwardedBy: string | null;
    /** The digest of the body the peer signed, checked against the body once parsed. */
    forwardedBodyDigest: string | null;
  }
}

/**
 * What of the client's request travels to the owner: its credentials (an API key, or a dashboard session's cookie,
 * checked again there) and what it accepts.
 */
const PASSED_HEADERS = ['authorization', 'cookie', 'accept'] as const;
/** What of the owner's answer travels back (beside its status and body): a dashboard form's redirect too. */
const RETURNED_HEADERS = ['content-type', 'retry-after', 'location'] as const;

export interface ForwardingDeps {
  instances: Pick<InstanceRepo, 'get' | 'list'>;
  /** This process's instance id. */
  self: string;
  /** SecretBox.derive(FORWARDING_KEY_PURPOSE): the same on every node sharing the master key. */
  key: Buffer;
  clock: Clock;
  log: Logger;
  /** Whether a peer counts as dead now (the recovery sweep's rule: silent for the stale period, or its pid gone). */
  liveness: () => Liveness;
  /** How long the owner may take to answer (a redirect fetches the customer's document first). */
  answerTimeoutMs?: number;
}

export class CallForwarding {
  readonly #d: ForwardingDeps;
  /** Kept-alive connections to the peers; a peer that died fails the connect within its timeout. */
  readonly #peers: Agent;

  constructor(deps: ForwardingDeps) {
    this.#d = deps;
    const answerMs = deps.answerTimeoutMs ?? 30_000;
    this.#peers = new Agent({ connect: { timeout: 2_000 }, headersTimeout: answerMs, bodyTimeout: answerMs });
  }

  /**
   * Marks the requests a peer forwarded (forwardedBy) as they arrive, before the checks they skip (HTTPS on the
   * preview root, its rate limit); install before those. Their bodies are checked against the signed digest once
   * parsed: one that differs is refused.
   */
  install(http: FastifyInstance): void {
    http.decorateRequest('forwardedBy', null);
    http.decorateRequest('forwardedBodyDigest', null);
    // On every request: callbacks, not promises (see the onSend hook in src/http/app.ts).
    http.addHook('onRequest', (req, _reply, done) => {
      if (req.headers[FORWARDED_BY_HEADER] === undefined) return done();
      const forward = checkForward(this.#d.key, req.headers, req.method, req.url, this.#d.clock.now());
      // A forged or stale mark is ignored: the request is handled as a client's own, which is all it could be.
      if (!forward) {
        req.log.warn('a request marked as forwarded by a peer did not check out; handled as a client request');
        return done();
      }
      req.forwardedBy = forward.from;
      req.forwardedBodyDigest = forward.bodyDigest;
      done();
    });
    http.addHook('preValidation', (req, _reply, done) => {
      done(req.forwardedBodyDigest && !bodyMatches(req.forwardedBodyDigest, req.body) ? errors.forwardedBodyMismatch() : undefined);
    });
  }

  /**
   * Sends the request to the node carrying the call when that is another live node, and its answer to the client:
   * true when it did. False when the call is carried here, has ended (the store answers for it), has no owner on
   * record, or the request came forwarded already: it is then handled here, where a call this process does not
   * carry is refused as not carried here. Throws the 503 call_owner_unavailable when the owner is dead or does not
   * answer.
   */
  async elsewhere(req: FastifyRequest, reply: FastifyReply, call: Pick<CallRecord, 'owner' | 'endedAt'>): Promise<boolean> {
    const { owner } = call;
    if (owner === null || owner === this.#d.self || call.endedAt !== null || req.forwardedBy) return false;
    const peer = await this.#d.instances.get(owner);
    // A node that stopped cleanly left the table, its calls ended: nothing of the call runs anywhere.
    if (!peer) return false;
    if (peer.address === null || deadInstances([peer], this.#d.liveness()).length > 0) throw errors.callOwnerUnavailable();
    if (!(await this.#relay(req, reply, peer.address))) throw errors.callOwnerUnavailable();
    return true;
  }

  /**
   * Sends a request for new work (a call to place) that this node, draining, does not take to a live node that is
   * not draining, and its answer to the client: true when it did; false when there is none, or the request came
   * forwarded already (a peer that began draining meanwhile), or the chosen one did not answer.
   */
  async toPeer(req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    if (req.forwardedBy) return false;
    const all = await this.#d.instances.list();
    const dead = new Set(deadInstances(all, this.#d.liveness()).map((i) => i.id));
    const takers = all.filter((i) => i.id !== this.#d.self && i.address !== null && i.drainingAt === null && i.reconciledBy === null && !dead.has(i.id));
    const peer = takers[Math.floor(Math.random() * takers.length)];
    if (!peer?.address) return false;
    return this.#relay(req, reply, peer.address);
  }

  /** The request, signed, to the peer at `address`, and its answer to the client; false when the peer did not answer. */
  async #relay(req: FastifyRequest, reply: FastifyReply, address: string): Promise<boolean> {
    const body = bodyText(req.body);
    const headers: Record<string, string> = forwardHeaders(this.#d.key, this.#d.self, { method: req.method, url: req.url, body }, this.#d.clock.now());
    for (const name of PASSED_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    if (body !== '') headers['content-type'] = 'application/json';
    let answer: Dispatcher.ResponseData;
    try {
      answer = await this.#peers.request({ origin: address, path: req.url, method: req.method as Dispatcher.HttpMethod, headers, body: body === '' ? null : body });
    } catch (err) {
      const timedOut = err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError || err instanceof undiciErrors.ConnectTimeoutError;
      req.log.warn({ err, address, timedOut }, 'a forwarded request failed');
      return false;
    }
    const text = await answer.body.text();
    void reply.status(answer.statusCode);
    for (const name of RETURNED_HEADERS) {
      const value = answer.headers[name];
      if (typeof value === 'string') void reply.header(name, value);
    }
    await reply.send(text === '' ? undefined : text);
    return true;
  }

  close(): Promise<void> {
    return this.#peers.close();
  }
}

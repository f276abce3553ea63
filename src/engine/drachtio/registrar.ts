// The registrar: trunks (PBXs, WebRTC seats) REGISTER with their endpoint_name and password; accepted
// contacts are kept with their expiry so calls to a trunk or client can find them. They are stored (the
// control plane's SQLite), so a restart does not make trunks unreachable until they re-register.
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type { CredentialStore } from './credentials.js';
import { parseRegister, transportOf, type RegisterRequest } from './register-request.js';

export interface Registration {
  endpointName: string;
  contact: string;
  /** Where the REGISTER came from: requests to the contact go through here (NAT, WebSocket connections). */
  proxy: string;
  transport: string;
  expiresAt: number;
}

/** Where bindings are kept: the store's RegistrationRepo. Expired rows may linger; listLive ignores them. */
export interface RegistrationStore {
  upsert(r: Registration): Promise<void>;
  remove(endpointName: string, contact: string): Promise<unknown>;
  removeAll(endpointName: string): Promise<unknown>;
  /** Bindings whose expiry is after `now`, newest expiry first. */
  listLive(endpointName: string, now: number): Promise<Registration[]>;
  pruneExpired(now: number): Promise<unknown>;
}

const MIN_EXPIRES = 60;
const MAX_EXPIRES = 3600;
const DEFAULT_EXPIRES = 3600;

export class Registrar {
  constructor(
    private readonly credentials: CredentialStore,
    private readonly bindings: RegistrationStore,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Current contacts of a trunk, newest first. */
  lookup(endpointName: string): Promise<Registration[]> { return this.bindings.listLive(endpointName, this.now()); }

  /** Ends every registration of a trunk (revoke, suspend). */
  async forget(endpointName: string): Promise<void> { await this.bindings.removeAll(endpointName); }

  /** Answers the REGISTER once its bindings are stored; never rejects. */
  async handle(req: Srf.SrfRequest, res: Srf.SrfResponse): Promise<void> {
    const auth = await this.credentials.authenticate(req, 'authorization');
    if (!auth.ok) {
      if (auth.challenge) {
        res.send(401, { headers: { 'WWW-Authenticate': this.credentials.digest.challenge() } });
      } else {
        this.log.info({ from: req.get('From'), source: req.source_address }, 'REGISTER refused: bad credentials');
        res.send(403);
      }
      return;
    }
    const reg = parseRegister(req);
    if (reg.kind === 'query') {
      res.send(200); // a query for bindings: nothing to change
      return;
    }
    try {
      await this.#update(auth.endpointName, reg, req, res);
    } catch (err) {
      // A binding that could not be stored (database busy or full) must not look accepted: the UA retries.
      this.log.error({ err, endpointName: auth.endpointName }, 'REGISTER not stored');
      res.send(500);
    }
  }

  async #update(endpointName: string, reg: Exclude<RegisterRequest, { kind: 'query' }>, req: Srf.SrfRequest, res: Srf.SrfResponse): Promise<void> {
    const now = this.now();
    // Each accepted REGISTER sweeps out every expired binding: the table stays about the size of the live ones
    // without a timer, and lookups ignore whatever expired since.
    await this.bindings.pruneExpired(now);
    if (reg.kind === 'remove-all') {
      await this.bindings.removeAll(endpointName);
      res.send(200);
      return;
    }
    const transport = transportOf(req);
    const granted: string[] = [];
    for (const { uri, expires: asked } of reg.contacts) {
      if (asked === 0) {
        await this.bindings.remove(endpointName, uri);
        continue;
      }
      const expires = Math.min(MAX_EXPIRES, Math.max(MIN_EXPIRES, Number.isFinite(asked) && asked > 0 ? asked : DEFAULT_EXPIRES));
      await this.bindings.upsert({
        endpointName, contact: uri, transport,
        // drachtio's own name for the connection (a WebSocket is `tcp` to it), so requests reuse it.
        proxy: `sip:${req.source_address}:${req.source_port};transport=${(req.protocol || 'udp').toLowerCase()}`,
        expiresAt: now + expires * 1000,
      });
      granted.push(`<${uri}>;expires=${expires}`);
      this.log.info({ endpointName, contact: uri, expires }, 'trunk registered');
    }
    res.send(200, granted.length ? { headers: { Contact: granted.join(', ') } } : {});
  }
}

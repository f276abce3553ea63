// The registrar: trunks (PBXs, WebRTC seats) REGISTER with their endpoint_name and password; accepted
// contacts are kept with their expiry so calls to a trunk or client can find them. In memory: a restart
// forgets them, and well-behaved UAs re-register within their expiry.
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type { CredentialStore } from './credentials.js';
import { parseRegister } from './register-request.js';

export interface Registration {
  endpointName: string;
  contact: string;
  /** Where the REGISTER came from: requests to the contact go through here (NAT, WebSocket connections). */
  proxy: string;
  transport: string;
  expiresAt: number;
}

const MIN_EXPIRES = 60;
const MAX_EXPIRES = 3600;
const DEFAULT_EXPIRES = 3600;

export class Registrar {
  readonly #bindings = new Map<string, Map<string, Registration>>();

  constructor(private readonly credentials: CredentialStore, private readonly log: Logger, private readonly now: () => number = Date.now) {}

  /** Current contacts of a trunk, newest first. */
  lookup(endpointName: string): Registration[] {
    const now = this.now();
    const bindings = this.#bindings.get(endpointName);
    if (!bindings) return [];
    for (const [k, r] of bindings) if (r.expiresAt <= now) bindings.delete(k);
    return [...bindings.values()].sort((a, b) => b.expiresAt - a.expiresAt);
  }

  /** Ends every registration of a trunk (revoke, suspend). */
  forget(endpointName: string): void { this.#bindings.delete(endpointName); }

  handle(req: Srf.SrfRequest, res: Srf.SrfResponse): void {
    const auth = this.credentials.authenticate(req, 'authorization');
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
    const bindings = this.#bindings.get(auth.endpointName) ?? new Map<string, Registration>();
    this.#bindings.set(auth.endpointName, bindings);
    if (reg.kind === 'remove-all') {
      bindings.clear();
      res.send(200);
      return;
    }
    const transport = (req.protocol || 'udp').toLowerCase();
    const granted: string[] = [];
    for (const { uri, expires: asked } of reg.contacts) {
      if (asked === 0) {
        bindings.delete(uri);
        continue;
      }
      const expires = Math.min(MAX_EXPIRES, Math.max(MIN_EXPIRES, Number.isFinite(asked) && asked > 0 ? asked : DEFAULT_EXPIRES));
      bindings.set(uri, {
        endpointName: auth.endpointName, contact: uri, transport,
        proxy: `sip:${req.source_address}:${req.source_port};transport=${transport}`,
        expiresAt: this.now() + expires * 1000,
      });
      granted.push(`<${uri}>;expires=${expires}`);
      this.log.info({ endpointName: auth.endpointName, contact: uri, expires }, 'trunk registered');
    }
    res.send(200, granted.length ? { headers: { Contact: granted.join(', ') } } : {});
  }
}

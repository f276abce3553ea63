// The trunk credentials the SIP layer accepts, kept in memory only: the control plane hands them over again
// at every start (TrunkService.provisionOnStart), so nothing secret is written by the engine. With a lookup
// (EnginePort.lookUpTrunksWith) the control plane is asked at each login instead, so a trunk created, suspended or
// revoked through another control plane counts here at once; what was handed over is the fallback when it fails.
import type Srf from 'drachtio-srf';
import type { TrunkCredentials, TrunkLookup } from '../port.js';
import { DigestAuthority, parseDigest } from './digest.js';

export type AuthOutcome =
  | { ok: true; endpointName: string }
  | { ok: false; challenge: true }
  | { ok: false; challenge: false };

export class CredentialStore {
  readonly #trunks = new Map<string, TrunkCredentials>();
  #lookup: TrunkLookup | null = null;

  constructor(readonly digest: DigestAuthority) {}

  lookUpWith(lookup: TrunkLookup): void { this.#lookup = lookup; }

  set(trunk: TrunkCredentials): void { this.#trunks.set(trunk.endpointName, trunk); }
  delete(endpointName: string): void { this.#trunks.delete(endpointName); }
  has(endpointName: string): boolean { return this.#trunks.get(endpointName)?.password != null; }
  get(endpointName: string): TrunkCredentials | undefined { return this.#trunks.get(endpointName); }

  /**
   * Checks a request's digest answer (`header` is Authorization or Proxy-Authorization). No answer, or a
   * stale nonce, earns a challenge; a wrong password or an unknown/withdrawn user is refused outright.
   */
  async authenticate(req: Srf.SrfRequest, header: 'authorization' | 'proxy-authorization'): Promise<AuthOutcome> {
    const creds = parseDigest(req.has(header) ? req.get(header) : undefined);
    if (!creds) return { ok: false, challenge: true };
    const trunk = await this.#find(creds.username);
    if (!trunk || trunk.password === null) return { ok: false, challenge: false };
    const verdict = this.digest.verify(creds, req.method, trunk.password);
    if (verdict === 'ok') return { ok: true, endpointName: trunk.endpointName };
    return { ok: false, challenge: verdict === 'stale' };
  }

  async #find(endpointName: string): Promise<TrunkCredentials | undefined> {
    if (this.#lookup) {
      try { return (await this.#lookup(endpointName)) ?? undefined; } catch { /* the store is unreachable: what was handed over counts */ }
    }
    return this.#trunks.get(endpointName);
  }
}

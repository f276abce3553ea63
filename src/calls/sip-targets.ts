import type { OriginateTarget } from '../engine/port.js';
import type { TrunkRepo } from '../store/trunks.js';
import type { CallServices } from './services.js';

export type TargetVet = { ok: true; target: OriginateTarget } | { ok: false; reason: string };

/**
 * Why a client:<identity> target is not the account's to ring, or null when it is: an identity is one of the
 * account's own seats (a trunk's endpoint name), never another account's, registered or not. The registrar knows
 * nothing of accounts, so this is the only place the line is drawn.
 */
export async function clientTargetProblem(store: { trunks: TrunkRepo }, accountId: number, identity: string): Promise<string | null> {
  return (await store.trunks.getByEndpointName(identity))?.accountId === accountId ? null : `client:${identity} is not a seat of this account`;
}

/**
 * Every dial goes through here right before the engine: a SIP URI is vetted by the target policy at this
 * moment (DNS may have changed since the request was accepted) and pinned to the address that passed; a client
 * must be a seat of the account placing the call. Numbers and trunks are routed by the platform itself.
 */
export async function vetOriginateTarget(services: Pick<CallServices, 'sip' | 'store'>, accountId: number, target: OriginateTarget): Promise<TargetVet> {
  if (target.kind === 'client') {
    const problem = await clientTargetProblem(services.store, accountId, target.identity);
    return problem ? { ok: false, reason: problem } : { ok: true, target };
  }
  if (target.kind !== 'sip') return { ok: true, target };
  const vet = await services.sip.vet(target.uri);
  return vet.ok ? { ok: true, target: { ...target, via: vet.target.via } } : vet;
}

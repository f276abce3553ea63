import type { OriginateTarget } from '../engine/port.js';
import type { CallServices } from './services.js';

export type TargetVet = { ok: true; target: OriginateTarget } | { ok: false; reason: string };

/**
 * Every dial goes through here right before the engine: a SIP URI is vetted by the target policy at this
 * moment (DNS may have changed since the request was accepted) and pinned to the address that passed.
 * Numbers, clients and trunks are routed by the platform itself and need no check.
 */
export async function vetOriginateTarget(services: Pick<CallServices, 'sip'>, target: OriginateTarget): Promise<TargetVet> {
  if (target.kind !== 'sip') return { ok: true, target };
  const vet = await services.sip.vet(target.uri);
  return vet.ok ? { ok: true, target: { ...target, via: vet.target.via } } : vet;
}

import type { CarrierAttempt } from '../engine/port.js';

/**
 * A carrier gateway tried for a call to a number, as its timeline shows it (docs/carriers.md): a call that failed
 * over shows each gateway in turn, and the last one's answer is the call's.
 */
export const carrierAttemptEntry = (a: CarrierAttempt): Record<string, unknown> =>
  ({ carrier: a.carrier, gateway: a.gateway, sip_status: a.sipStatus, outcome: a.outcome, failover: a.failover });

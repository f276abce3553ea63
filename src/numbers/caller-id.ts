// A number an account calls from must be its own and active at the moment it dials, not only when the call was
// set up: a number released to the pool (and perhaps given to another account since) stops every callback and
// campaign that named it, however long ago that was. One rule for the API's `from`, callbacks and campaigns.
import type { NumberRepo, PhoneNumber } from './repo.js';
import type { SqlQueries } from '../store/sql.js';
import { E164 } from './settings.js';

export type CallerIdCheck = { ok: true; number: PhoneNumber } | { ok: false; problem: string };

/** `q`: the transaction of a caller that checks inside one (else the number is read on its own). */
export async function checkCallerId(numbers: Pick<NumberRepo, 'getByE164'>, accountId: number, from: string, q?: SqlQueries): Promise<CallerIdCheck> {
  const number = E164.test(from) ? await numbers.getByE164(from, q) : undefined;
  if (!number || number.accountId !== accountId) return { ok: false, problem: `${from} is not a number of this account` };
  if (!number.settings.active) return { ok: false, problem: `${from} is inactive; calls cannot be placed from it` };
  return { ok: true, number };
}

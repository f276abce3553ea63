// The two ends of a call the preview API places for a customer (a conference participant, a supervisor): `from`
// must be an active number of the account; `to` an E.164 number, a sip: URI (under the SIP target policy) or
// client:<identity> naming a seat of the account. Each problem is the 400 of the field it concerns.
import type { PlatformServices } from '../platform-services.js';
import type { OriginateTarget } from '../../engine/port.js';
import type { PhoneNumber } from '../../numbers/repo.js';
import { calledTarget as vetCalledTarget } from '../place-request.js';
import { checkCallerId } from '../../numbers/caller-id.js';
import { previewErrors } from '../errors.js';

export async function callerNumber(services: Pick<PlatformServices, 'store'>, accountId: number, from: string, param = 'from'): Promise<PhoneNumber> {
  const check = await checkCallerId(services.store.numbers, accountId, from);
  if (!check.ok) throw previewErrors.parameterInvalid(param, `${check.problem}.`);
  return check.number;
}

export async function calledTarget(services: Pick<PlatformServices, 'sip' | 'store'>, accountId: number, to: string): Promise<OriginateTarget> {
  const vetted = await vetCalledTarget(services, accountId, to);
  if (!vetted.ok) throw previewErrors.parameterInvalid('to', vetted.problem);
  return vetted.target;
}

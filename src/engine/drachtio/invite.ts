// Who is calling: a carrier (trusted by source address or range, DID calls, its numbers read by its number rules), or
// a trunk / WebRTC seat that proves its credentials with a digest answer to our 407. Every other source is challenged (a PBX sends its extension as
// the From user, not the trunk's endpoint name, so nothing else tells a trunk apart) and refused with 403
// when it cannot answer: no media is spent before that.
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type { CallSource } from '../port.js';
import { carrierNumber, e164 } from './addresses.js';
import { carrierAt, type CarrierDirectory } from './carriers.js';
import type { CredentialStore } from './credentials.js';

export type InviteVerdict =
  | { accept: true; source: CallSource; from: string; to: string }
  | { accept: false };

/** Classifies a new INVITE, answering the refusals and challenges itself. */
export async function classifyInvite(req: Srf.SrfRequest, res: Srf.SrfResponse, carriers: CarrierDirectory, credentials: CredentialStore, log: Logger): Promise<InviteVerdict> {
  const to = e164(req.calledNumber);
  const carrier = await carrierAt(carriers, req.source_address, Number(req.source_port));
  if (carrier) {
    const [from, called] = [carrierNumber(req.callingNumber, carrier.numbers, 'caller-id'), carrierNumber(req.calledNumber, carrier.numbers, 'request-uri')];
    return { accept: true, source: { kind: 'carrier', name: carrier.name }, from, to: called };
  }

  const auth = await credentials.authenticate(req, 'proxy-authorization');
  if (!auth.ok) {
    if (auth.challenge) res.send(407, { headers: { 'Proxy-Authenticate': credentials.digest.challenge() } });
    else {
      log.info({ source: `${req.source_address}:${req.source_port}`, to }, 'INVITE refused: not a carrier, no valid trunk credentials');
      res.send(403);
    }
    return { accept: false };
  }
  return { accept: true, source: { kind: 'trunk', endpointName: auth.endpointName }, from: e164(req.callingNumber), to };
}

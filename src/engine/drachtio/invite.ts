// Who is calling: a carrier (by source address or range, or on its registration; DID calls, its numbers read by its
// number rules), or a trunk / WebRTC seat that proves its credentials with a digest answer to our 407. Every other
// source is challenged (a PBX sends its extension as the From user, not the trunk's endpoint name, so nothing else
// tells a trunk apart) and refused with 403 when it cannot answer: no media is spent before that.
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type { CallSource } from '../port.js';
import { carrierNumber, e164 } from './addresses.js';
import { carrierAt, type CarrierDirectory, type CarrierEntry } from './carriers.js';
import type { CredentialStore } from './credentials.js';

export type InviteVerdict =
  | { accept: true; source: CallSource; from: string; to: string; carrier?: CarrierEntry }
  | { accept: false };

export interface InviteCarriers {
  carriers: CarrierDirectory;
  /** The registering carrier whose registration's contact user this is. */
  registered: (user: string | undefined) => CarrierEntry | undefined;
}

/** The user part of a header's URI (the To of a call arriving on a registration names the number called). */
function userOf(req: Srf.SrfRequest, header: string): string | undefined {
  const uri = (req.getParsedHeader(header) as { uri?: string } | undefined)?.uri;
  return uri ? /^(?:sips?|tel):([^@;]+)/.exec(uri)?.[1] : undefined;
}

/** Classifies a new INVITE, answering the refusals and challenges itself. */
export async function classifyInvite(req: Srf.SrfRequest, res: Srf.SrfResponse, carriers: InviteCarriers, credentials: CredentialStore, log: Logger): Promise<InviteVerdict> {
  const to = e164(req.calledNumber);
  const bySource = await carrierAt(carriers.carriers, req.source_address, Number(req.source_port));
  // A call on our registration is sent to our Contact: its request URI names us, its To the number called.
  const carrier = bySource ?? carriers.registered(req.calledNumber);
  if (carrier) {
    const called = bySource ? req.calledNumber : userOf(req, 'To');
    return {
      accept: true, source: { kind: 'carrier', name: carrier.name }, carrier,
      from: carrierNumber(req.callingNumber, carrier.numbers, 'caller-id'), to: carrierNumber(called, carrier.numbers, bySource ? 'request-uri' : 'caller-id'),
    };
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

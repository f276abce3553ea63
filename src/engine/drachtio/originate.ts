// Outbound legs: where a call goes (a number through the carriers' gateways, a SIP URI, a registered trunk or client)
// and, for numbers, failing over from one gateway to the next (docs/carriers.md). Each INVITE is outbound-attempt.ts.
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type { OriginateRequest, OriginateResult, OriginateTarget } from '../port.js';
import { toCarrierNumber } from '../../net/number-rules.js';
import { splitSipUriHeaders } from '../../net/sip-uri-headers.js';
import { gatewayKey } from '../../store/carriers.js';
import { attemptsFor, gatewayUri, type CarrierDirectory, type GatewayAttempt } from './carriers.js';
import { DrachtioLeg } from './leg.js';
import { DrachtioIncomingCall } from './incoming.js';
import type { MediaServer } from './fsmrf.js';
import type { Registrar } from './registrar.js';
import type { OnServer } from './media-pool.js';
import { attemptRoute, failed, type AttemptResult, type Route } from './outbound-attempt.js';

export { INVITE_TRANSACTION_MS } from './outbound-attempt.js';

/** How long a carrier gateway may stay silent (not even 100 Trying) before the next one is tried. */
export const GATEWAY_NO_RESPONSE_MS = 4_000;

/**
 * The longest an SDES-SRTP attempt rings: FreeSWITCH holds its offer's 200 OK until the far end answers (the answer
 * goes in the ACK, fsmrf.ts offerFromServer) and gives up at its timer H, 32 s; a later answer could not be taken.
 */
export const SRTP_RING_LIMIT_MS = 30_000;

const WEBRTC_TRANSPORTS = new Set(['ws', 'wss']);

export interface OriginateDeps {
  srf: Srf;
  /** The media server for the call's endpoint, beside `near` (what it will be bridged with) when it can be. */
  media: (near?: OnServer) => MediaServer | null;
  carriers: CarrierDirectory;
  registrar: Registrar;
  log: Logger;
  newId: () => string;
  track: (leg: DrachtioLeg) => void;
  /** Whether the health checks find a gateway (by its gatewayKey) answering; every gateway is, without them. */
  gatewayUp?: (key: string) => boolean;
  /** GATEWAY_NO_RESPONSE_MS unless set. */
  gatewayNoResponseMs?: number;
}

/** A route, and for a call to a number the carrier gateway it goes through. */
interface PlannedRoute { route: Route; via?: { carrier: string; gateway: string } }

/** Puts `number` in the user part of a registered contact, keeping its host, port and parameters. */
function withUser(contact: string, user: string): string {
  return contact.replace(/^(sips?:)(?:[^@]*@)?/, `$1${user}@`);
}

/** The INVITE to one gateway: the numbers written as the carrier wants them, its credentials for its challenges. */
function carrierRoute({ carrier, gateway }: GatewayAttempt, number: string, callerId: string): PlannedRoute {
  return {
    route: {
      uri: gatewayUri(gateway, toCarrierNumber(number, carrier.numbers, 'request-uri')), to: number,
      callingNumber: toCarrierNumber(callerId, carrier.numbers, 'caller-id'), dtmf: carrier.dtmf, codecs: carrier.codecs,
      ...(carrier.auth ? { auth: { username: carrier.auth.username, password: carrier.auth.password } } : {}),
      ...(carrier.srtp === 'off' ? {} : { srtp: carrier.srtp }),
    },
    via: { carrier: carrier.name, gateway: gatewayKey(carrier.name, gateway) },
  };
}

async function routesOf(target: OriginateTarget, callerId: string, deps: OriginateDeps): Promise<PlannedRoute[]> {
  switch (target.kind) {
    case 'number':
      return attemptsFor(await deps.carriers.list(), target.number, deps.gatewayUp).map((a) => carrierRoute(a, target.number, callerId));
    case 'sip': {
      // Vetted by the target policy, which refuses any header but X- ones.
      const split = splitSipUriHeaders(target.uri);
      if (!split.ok) return [];
      return [{
        route: {
          uri: split.uri, to: split.uri, headers: split.headers, ...(target.via ? { proxy: target.via } : {}),
          ...(target.username && target.password ? { auth: { username: target.username, password: target.password } } : {}),
        },
      }];
    }
    case 'trunk': {
      const [reg] = await deps.registrar.lookup(target.endpointName);
      return reg ? [{ route: { uri: withUser(reg.contact, target.number), proxy: reg.proxy, to: target.number, lateOffer: WEBRTC_TRANSPORTS.has(reg.transport) } }] : [];
    }
    case 'client': {
      const [reg] = await deps.registrar.lookup(target.identity);
      return reg ? [{ route: { uri: reg.contact, proxy: reg.proxy, to: `client:${target.identity}`, lateOffer: WEBRTC_TRANSPORTS.has(reg.transport) } }] : [];
    }
  }
}

/**
 * Worth trying the next gateway: this one sent nothing at all, timed out (408) or failed as a server (5xx, 6xx). Any
 * other 4xx is about the number itself (wrong, busy, refused), which another gateway would say again.
 */
const failsOver = (r: AttemptResult): boolean => !r.answered && (r.noResponse === true || r.sipStatus === 408 || (r.sipStatus ?? 0) >= 500);

export async function originate(req: OriginateRequest, deps: OriginateDeps): Promise<OriginateResult> {
  const routes = await routesOf(req.target, req.callerId, deps);
  const ms = deps.media(req.bridgeWith instanceof DrachtioLeg ? req.bridgeWith.ep
    : req.bridgeWith instanceof DrachtioIncomingCall ? req.bridgeWith.endpoint ?? undefined : undefined);
  if (routes.length === 0) {
    // The target as kind alone: a SIP target carries its digest password.
    deps.log.info({ target: req.target.kind }, 'originate: no route (no carrier gateway up, or no registration)');
    return failed('failed', 404);
  }
  if (!ms) return failed('failed', 503);
  // The dial timeout (the ring limit) holds for all the attempts together.
  const deadline = Date.now() + req.timeoutMs;
  for (let i = 0; ; i++) {
    const { route, via } = routes[i]!;
    if (req.signal?.aborted) return failed('canceled');
    const last = i === routes.length - 1;
    const { noResponse, ...result } = await attemptRoute(req, route, ms, deps, {
      timeoutMs: Math.min(Math.max(deadline - Date.now(), 0), route.srtp ? SRTP_RING_LIMIT_MS : Infinity), noResponseMs: last ? null : deps.gatewayNoResponseMs ?? GATEWAY_NO_RESPONSE_MS,
    });
    const next = !last && failsOver({ ...result, ...(noResponse ? { noResponse } : {}) }) && Date.now() < deadline;
    if (via) {
      const outcome = result.answered ? 'answered' : noResponse ? 'no-response' : result.cause;
      try {
        req.onCarrierAttempt?.({ ...via, sipStatus: result.answered ? 200 : result.sipStatus ?? null, outcome, failover: next });
      } catch { /* a broken callback must not break the call */ }
    }
    if (!next) return result;
  }
}

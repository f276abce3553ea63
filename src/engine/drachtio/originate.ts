// Outbound legs: FreeSWITCH makes the offer (3PCC endpoint without remote SDP), drachtio sends the INVITE
// to the carrier / URI / registered contact, and the answer's SDP is given back to the endpoint. WebRTC seats
// (registered over ws/wss) get a late-offer INVITE instead: their DTLS/ICE offer comes in the 200 OK and
// FreeSWITCH answers it in the ACK, the same media negotiation as a seat calling in.
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type { AttemptFailure, OriginateRequest, OriginateResult, OriginateTarget } from '../port.js';
import { answeredCodecInForce } from './answered-codec.js';
import { causeOfSipStatus } from './causes.js';
import { gatewayUri, routeFor, type CarrierDirectory } from './carriers.js';
import { bye } from './dialogs.js';
import { connectOffer, type Endpoint, type MediaServer } from './fsmrf.js';
import { DrachtioLeg } from './leg.js';
import { DrachtioIncomingCall } from './incoming.js';
import { readThroughJitterBuffer } from './jitter-buffer.js';
import { quietly } from './media-context.js';
import type { Registrar } from './registrar.js';
import { splitSipUriHeaders } from '../../net/sip-uri-headers.js';
import type { OnServer } from './media-pool.js';

/** `headers`: the X- headers a <Sip> target's URI carried, sent with the INVITE. */
interface Route { uri: string; proxy?: string; auth?: { username: string; password: string }; to: string; lateOffer?: boolean; headers?: Record<string, string> }

/** What drachtio-srf gives back for an answered late-offer INVITE (`noAck`): the far end's offer, ACK pending. */
interface UnackedAnswer { sdp: string; ack(sdp: string): Promise<Srf.Dialog>; destroy(): Promise<void> }

const WEBRTC_TRANSPORTS = new Set(['ws', 'wss']);

/** Hangs up an answer that is no longer wanted: BYE on a dialog; ACK then BYE on an unacknowledged late offer. */
const abandon = (answer: Srf.Dialog | UnackedAnswer): Promise<void> => ('remote' in answer ? bye(answer) : answer.destroy().catch(() => undefined));

export interface OriginateDeps {
  srf: Srf;
  /** The media server for the call's endpoint, beside `near` (what it will be bridged with) when it can be. */
  media: (near?: OnServer) => MediaServer | null;
  carriers: CarrierDirectory;
  registrar: Registrar;
  log: Logger;
  newId: () => string;
  track: (leg: DrachtioLeg) => void;
}

/** Puts `number` in the user part of a registered contact, keeping its host, port and parameters. */
function withUser(contact: string, user: string): string {
  return contact.replace(/^(sips?:)(?:[^@]*@)?/, `$1${user}@`);
}

async function routeOf(target: OriginateTarget, deps: OriginateDeps): Promise<Route | null> {
  switch (target.kind) {
    case 'number': {
      const carrier = await routeFor(deps.carriers, target.number);
      return carrier ? { uri: gatewayUri(carrier, target.number), to: target.number } : null;
    }
    case 'sip': {
      // Vetted by the target policy, which refuses any header but X- ones.
      const split = splitSipUriHeaders(target.uri);
      if (!split.ok) return null;
      return {
        uri: split.uri, to: split.uri, headers: split.headers, ...(target.via ? { proxy: target.via } : {}),
        ...(target.username && target.password ? { auth: { username: target.username, password: target.password } } : {}),
      };
    }
    case 'trunk': {
      const [reg] = await deps.registrar.lookup(target.endpointName);
      return reg ? { uri: withUser(reg.contact, target.number), proxy: reg.proxy, to: target.number, lateOffer: WEBRTC_TRANSPORTS.has(reg.transport) } : null;
    }
    case 'client': {
      const [reg] = await deps.registrar.lookup(target.identity);
      return reg ? { uri: reg.contact, proxy: reg.proxy, to: `client:${target.identity}`, lateOffer: WEBRTC_TRANSPORTS.has(reg.transport) } : null;
    }
  }
}

/** An INVITE client transaction's timeout (RFC 3261 timer B, 64·T1): how long a CANCELed attempt waits for its 487. */
export const INVITE_TRANSACTION_MS = 32_000;

const failed = (cause: AttemptFailure, sipStatus?: number): OriginateResult =>
  ({ answered: false, cause, ...(sipStatus === undefined ? {} : { sipStatus }) });

export async function originate(req: OriginateRequest, deps: OriginateDeps): Promise<OriginateResult> {
  const route = await routeOf(req.target, deps);
  const ms = deps.media(req.bridgeWith instanceof DrachtioLeg ? req.bridgeWith.ep
    : req.bridgeWith instanceof DrachtioIncomingCall ? req.bridgeWith.endpoint ?? undefined : undefined);
  if (!route) {
    deps.log.info({ target: req.target }, 'originate: no route (no carrier or no registration)');
    return failed('failed', 404);
  }
  if (!ms) return failed('failed', 503);
  if (req.signal?.aborted) return failed('canceled');

  let inviteReq: Srf.SrfRequest | null = null;
  let withdrawn: 'timeout' | 'abort' | null = null;
  /** Any provisional response: before one, RFC 3261 allows no CANCEL, and a silent far end may never answer. */
  let heard = false;
  let stopWaiting!: () => void;
  const unheard = new Promise<'unheard'>((resolve) => { stopWaiting = () => resolve('unheard'); });
  const cancel = () => { try { inviteReq?.cancel(() => undefined); } catch { /* already final */ } };
  let owed487: NodeJS.Timeout | undefined;
  const withdraw = (why: 'timeout' | 'abort') => {
    if (!withdrawn) {
      withdrawn = why;
      cancel();
    }
    // Nothing heard yet (no CANCEL allowed, and the INVITE transaction would run to its 32 s timeout), or the ring
    // limit reached: give up now. A late answer is hung up.
    if (!heard || why === 'timeout') stopWaiting();
    // Heard and withdrawn before the ring limit: the far end owes the INVITE a 487. One that answers the CANCEL but
    // never sends it would hold the attempt and its FreeSWITCH channel for good (drachtio-server keeps the INVITE
    // transaction): the wait ends at that transaction's own timeout, or at the ring limit if that comes first.
    else owed487 ??= setTimeout(stopWaiting, INVITE_TRANSACTION_MS);
  };
  // The dial timeout (the ring limit) counts from here, so a media server slow to give an endpoint cannot hold the
  // attempt past it. It also runs on after a CANCEL, bounding the wait for the 487.
  const timer = setTimeout(() => withdraw('timeout'), req.timeoutMs);
  const onAbort = () => withdraw('abort');
  req.signal?.addEventListener('abort', onAbort, { once: true });
  const settle = () => {
    clearTimeout(timer);
    clearTimeout(owed487);
    req.signal?.removeEventListener('abort', onAbort);
  };

  let ep: Endpoint | null = null;
  if (!route.lateOffer) {
    const creating = ms.createEndpoint();
    try {
      const made = await Promise.race([creating, unheard]);
      if (made === 'unheard') {
        settle();
        creating.then((late) => late.destroy(), () => undefined).catch(() => undefined);
        return failed(withdrawn === 'abort' ? 'canceled' : 'no-answer');
      }
      ep = made;
    } catch (err) {
      settle();
      deps.log.warn({ err: (err as Error).message }, 'originate: no media endpoint');
      return failed('failed', 503);
    }
  }

  let rang = false;
  try {
    const invite: Promise<Srf.Dialog | UnackedAnswer> = deps.srf.createUAC(route.uri, {
      ...(ep ? { localSdp: ep.local.sdp } : { noAck: true }),
      ...(route.proxy ? { proxy: route.proxy } : {}),
      ...(route.auth ? { auth: route.auth } : {}),
      callingNumber: req.callerId,
      ...(route.headers && Object.keys(route.headers).length > 0 ? { headers: route.headers } : {}),
    } as unknown as Srf.CreateUACOptions, {
      // drachtio-srf calls this as (err, req), whatever its typings say.
      cbRequest: ((_err: unknown, sent: Srf.SrfRequest) => { inviteReq = sent; if (withdrawn) cancel(); }) as unknown as (req: Srf.SrfRequest) => void,
      cbProvisional: (res) => {
        heard = true;
        if (!rang && (res.status === 180 || res.status === 183)) {
          rang = true;
          try { req.onRinging?.(); } catch { /* a broken callback must not break the call */ }
        }
      },
    });
    const answer = await Promise.race([invite, unheard]);
    settle();
    if (answer === 'unheard') {
      invite.then(abandon, () => undefined);
      await ep?.destroy().catch(() => undefined);
      return failed(withdrawn === 'abort' ? 'canceled' : 'no-answer');
    }
    if (withdrawn) {
      // Answered in the same instant it was withdrawn: the answer loses.
      await abandon(answer);
      await ep?.destroy().catch(() => undefined);
      return failed(withdrawn === 'abort' ? 'canceled' : 'no-answer');
    }
    const media = ep ? await answerEarlyOffer(ep, answer as Srf.Dialog, deps.log) : await answerLateOffer(deps.srf, ms, answer as unknown as UnackedAnswer, deps.log);
    const leg = new DrachtioLeg(deps.newId(), req.callerId, route.to, media.ep, media.dialog, deps.log);
    deps.track(leg);
    return { answered: true, leg };
  } catch (err) {
    settle();
    await ep?.destroy().catch(() => undefined);
    const status = (err as { status?: number }).status;
    deps.log.info({ uri: route.uri, status, err: (err as Error).message, withdrawn }, 'outbound attempt failed');
    if (withdrawn === 'abort') return failed('canceled', status);
    if (withdrawn === 'timeout') return failed('no-answer', status);
    if (typeof status === 'number') return failed(causeOfSipStatus(status), status);
    deps.log.warn({ err: (err as Error).message }, 'originate failed');
    return failed('failed');
  }
}

/**
 * FreeSWITCH takes the far end's answer to its offer, and the leg is handed over once FreeSWITCH reads with the
 * answered codec (answered-codec.ts); a far end whose media cannot be set up is hung up.
 */
async function answerEarlyOffer(ep: Endpoint, dialog: Srf.Dialog, log: Logger): Promise<{ ep: Endpoint; dialog: Srf.Dialog }> {
  try {
    await ep.modify(dialog.remote.sdp);
    await answeredCodecInForce(ep, dialog.remote.sdp, log);
  } catch (err) {
    await bye(dialog);
    throw err;
  }
  return { ep, dialog };
}

/**
 * FreeSWITCH answers the seat's offer; a seat whose media cannot be set up is hung up, not left dangling. The
 * jitter buffer is best effort: without it the call still works, as before it existed, and nothing is left open.
 */
async function answerLateOffer(srf: Srf, ms: MediaServer, answer: UnackedAnswer, log: Logger): Promise<{ ep: Endpoint; dialog: Srf.Dialog }> {
  let dialog: Srf.Dialog | null = null;
  try {
    const ep = await connectOffer(srf, ms, answer.sdp, async (sdp) => { dialog = await answer.ack(sdp); });
    await quietly({ isEnded: false, log }, 'jitter buffer', () => readThroughJitterBuffer(ms, ep));
    return { ep, dialog: dialog! };
  } catch (err) {
    await abandon(dialog ?? answer);
    throw err;
  }
}

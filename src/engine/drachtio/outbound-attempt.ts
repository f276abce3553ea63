// One outbound INVITE: FreeSWITCH makes the offer (3PCC endpoint without remote SDP), drachtio sends the INVITE to
// the route, and the answer's SDP is given back to the endpoint. WebRTC seats (registered over ws/wss) get a
// late-offer INVITE instead: their DTLS/ICE offer comes in the 200 OK and FreeSWITCH answers it in the ACK, the same
// media negotiation as a seat calling in.
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type { AttemptFailure, OriginateRequest, OriginateResult } from '../port.js';
import { answeredCodecInForce } from './answered-codec.js';
import { causeOfSipStatus } from './causes.js';
import { preferCodecs } from './codec-preference.js';
import { bye } from './dialogs.js';
import { connectOffer, isPending, offerFromServer, secureMediaHeaders, type Endpoint, type MediaServer, type PendingEndpoint, type SrtpOffer } from './fsmrf.js';
import { DrachtioLeg } from './leg.js';
import { readThroughJitterBuffer } from './jitter-buffer.js';
import { quietly } from './media-context.js';
import type { DtmfMode } from '../../store/carriers.js';

/**
 * Where one INVITE goes. `headers`: the X- headers a <Sip> target's URI carried, sent with the INVITE;
 * `callingNumber`: the caller ID as the far end wants it written (a carrier's number rules), else the call's;
 * `srtp`: FreeSWITCH's offer carries SDES crypto (a carrier's SRTP setting).
 */
export interface Route {
  uri: string; proxy?: string; auth?: { username: string; password: string }; to: string; lateOffer?: boolean;
  headers?: Record<string, string>; callingNumber?: string; srtp?: SrtpOffer;
  /** How the far end sends keys (its carrier's setting). */
  dtmf?: DtmfMode;
  /** The codecs offered, in order (its carrier's preference); FreeSWITCH's own offer when absent. */
  codecs?: readonly string[];
}

export interface AttemptDeps {
  srf: Srf;
  log: Logger;
  newId: () => string;
  track: (leg: DrachtioLeg) => void;
}

/** `noResponse`: nothing at all came back within the attempt's bound (the next gateway may be tried). */
export type AttemptResult = OriginateResult & { noResponse?: boolean };

/** What drachtio-srf gives back for an answered late-offer INVITE (`noAck`): the far end's offer, ACK pending. */
interface UnackedAnswer { sdp: string; ack(sdp: string): Promise<Srf.Dialog>; destroy(): Promise<void> }

/** Hangs up an answer that is no longer wanted: BYE on a dialog; ACK then BYE on an unacknowledged late offer. */
const abandon = (answer: Srf.Dialog | UnackedAnswer): Promise<void> => ('remote' in answer ? bye(answer) : answer.destroy().catch(() => undefined));

/** An INVITE client transaction's timeout (RFC 3261 timer B, 64·T1): how long a CANCELed attempt waits for its 487. */
export const INVITE_TRANSACTION_MS = 32_000;

export const failed = (cause: AttemptFailure, sipStatus?: number): OriginateResult =>
  ({ answered: false, cause, ...(sipStatus === undefined ? {} : { sipStatus }) });

/** The end of an attempt given up on: stopped waiting only once withdrawn, so `null` does not come here. */
const withdrawnResult = (why: 'timeout' | 'abort' | 'silent' | null): AttemptResult =>
  (why === 'abort' ? failed('canceled') : why === 'silent' ? { ...failed('no-answer'), noResponse: true } : failed('no-answer'));

/**
 * One INVITE to one route within `timeoutMs`. With `noResponseMs`, a far end that sends nothing at all by then
 * (not even 100 Trying) is given up on with `noResponse` set, so the caller can try the next gateway.
 */
export async function attemptRoute(
  req: OriginateRequest, route: Route, ms: MediaServer, deps: AttemptDeps, bounds: { timeoutMs: number; noResponseMs: number | null },
): Promise<AttemptResult> {
  let inviteReq: Srf.SrfRequest | null = null;
  let withdrawn: 'timeout' | 'abort' | 'silent' | null = null;
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
  const timer = setTimeout(() => withdraw('timeout'), bounds.timeoutMs);
  let silence: NodeJS.Timeout | undefined;
  const onAbort = () => withdraw('abort');
  req.signal?.addEventListener('abort', onAbort, { once: true });
  const settle = () => {
    clearTimeout(timer);
    clearTimeout(owed487);
    clearTimeout(silence);
    req.signal?.removeEventListener('abort', onAbort);
  };

  let ep: Endpoint | PendingEndpoint | null = null;
  if (!route.lateOffer) {
    // SDES-SRTP: the answer must reach FreeSWITCH in the ACK (see offerFromServer).
    const creating: Promise<Endpoint | PendingEndpoint> = route.srtp ? offerFromServer(deps.srf, ms, secureMediaHeaders(route.srtp)) : ms.createEndpoint();
    try {
      const made = await Promise.race([creating, unheard]);
      if (made === 'unheard') {
        settle();
        creating.then((late) => late.destroy(), () => undefined).catch(() => undefined);
        return withdrawnResult(withdrawn);
      }
      ep = made;
    } catch (err) {
      settle();
      deps.log.warn({ err: (err as Error).message }, 'originate: no media endpoint');
      return failed('failed', 503);
    }
  }

  let rang = false;
  if (bounds.noResponseMs !== null) {
    silence = setTimeout(() => {
      if (heard || withdrawn) return;
      withdrawn = 'silent';
      cancel();
      stopWaiting();
    }, bounds.noResponseMs);
  }
  try {
    const invite: Promise<Srf.Dialog | UnackedAnswer> = deps.srf.createUAC(route.uri, {
      ...(ep ? { localSdp: preferCodecs(ep.local.sdp, route.codecs ?? []) } : { noAck: true }),
      ...(route.proxy ? { proxy: route.proxy } : {}),
      ...(route.auth ? { auth: route.auth } : {}),
      callingNumber: route.callingNumber ?? req.callerId,
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
      return withdrawnResult(withdrawn);
    }
    if (withdrawn) {
      // Answered in the same instant it was withdrawn: the answer loses.
      await abandon(answer);
      await ep?.destroy().catch(() => undefined);
      return withdrawnResult(withdrawn);
    }
    const media = ep ? await answerEarlyOffer(ep, answer as Srf.Dialog, deps.log) : await answerLateOffer(deps.srf, ms, answer as unknown as UnackedAnswer, deps.log);
    const leg = new DrachtioLeg(deps.newId(), req.callerId, route.to, media.ep, media.dialog, deps.log);
    if (route.dtmf) leg.keysBy(route.dtmf);
    deps.track(leg);
    return { answered: true, leg };
  } catch (err) {
    settle();
    await ep?.destroy().catch(() => undefined);
    const status = (err as { status?: number }).status;
    deps.log.info({ uri: route.uri, status, err: (err as Error).message, withdrawn }, 'outbound attempt failed');
    if (withdrawn) return { ...withdrawnResult(withdrawn), ...(status === undefined ? {} : { sipStatus: status }) };
    if (typeof status === 'number') return failed(causeOfSipStatus(status), status);
    deps.log.warn({ err: (err as Error).message }, 'originate failed');
    return failed('failed');
  }
}

/**
 * FreeSWITCH takes the far end's answer to its offer, and the leg is handed over once FreeSWITCH reads with the
 * answered codec (answered-codec.ts); a far end whose media cannot be set up is hung up.
 */
async function answerEarlyOffer(offered: Endpoint | PendingEndpoint, dialog: Srf.Dialog, log: Logger): Promise<{ ep: Endpoint; dialog: Srf.Dialog }> {
  let answered: Endpoint | null = null;
  try {
    const ep = isPending(offered) ? await offered.answer(dialog.remote.sdp) : await offered.modify(dialog.remote.sdp).then(() => offered);
    answered = ep;
    await answeredCodecInForce(ep, dialog.remote.sdp, log);
    return { ep, dialog };
  } catch (err) {
    if (answered && answered !== offered) await answered.destroy().catch(() => undefined);
    await bye(dialog);
    throw err;
  }
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

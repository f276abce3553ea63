// The telephony engine interface. The control plane never imports drachtio or FreeSWITCH outside
// src/engine/drachtio/; everything else speaks to an engine through these types. Operations map one-to-one
// onto drachtio-fsmrf endpoint calls (connectCaller → answer, speak → say, play, playCollect → collectDigits,
// record, bridge, conference join) so the real adapter stays thin.
import type { Transport } from '../store/trunks.js';
import type { RingTone } from '../markup/ring-tones.js';
import type { MediaCache } from '../media/media-cache.js';
import type { PromptCache } from '../media/prompt-cache.js';
import type { LocalMedia } from '../media/local-media.js';
import type {
  SayOptions, Prompt, CollectOptions, CollectResult, RecordOptions, RecordResult, RecordingTracks, CallRecordingOptions, CallRecording,
} from './port-media.js';
import type { AudioTrack, AudioTapMode, AudioFrame, AudioTapEvents, AudioTap, AudioTapOptions } from './port-audio-tap.js';

// The port speaks of local media (defined beside the caches that make it), of what a leg plays, collects and
// records, and of audio taps (in files of their own) to every engine and its callers.
export type { LocalMedia };
export type {
  SayOptions, Prompt, CollectOptions, CollectResult, RecordOptions, RecordResult, RecordingTracks, CallRecordingOptions, CallRecording,
  AudioTrack, AudioTapMode, AudioFrame, AudioTapEvents, AudioTap, AudioTapOptions,
};
export { AUDIO_FRAME_MS, AUDIO_FRAME_BYTES } from './port-audio-tap.js';

export interface TrunkCredentials {
  endpointName: string;
  /** null when the stored password cannot be decrypted: the engine must then refuse the trunk's logins. */
  password: string | null;
  transport: Transport;
}

/** A trunk's credentials as the control plane knows them now; null when it has no such trunk taking logins. */
export type TrunkLookup = (endpointName: string) => Promise<TrunkCredentials | null>;

export interface EngineHealth {
  ok: boolean;
  detail: string;
}

/** Where an incoming call came from: a trusted carrier (DID calls), an authenticated trunk, or a WSS client. */
export type CallSource =
  | { kind: 'carrier'; name: string }
  | { kind: 'trunk'; endpointName: string }
  | { kind: 'client'; identity: string };

/** Why a leg ended, normalised from SIP/Q.850 causes. */
export type HangupCause =
  | 'normal' // one side hung up after answer
  | 'caller-hangup' // the caller gave up before answer (CANCEL)
  | 'busy'
  | 'no-answer'
  | 'rejected'
  | 'failed'
  | 'canceled' // we withdrew an outbound attempt
  | EngineLostCause;

/**
 * The engine lost the server carrying the call (restart, crash, connection dropped), so the engine ended the
 * call itself: its media (FreeSWITCH) or its signalling (drachtio-server). Never the result of an attempt.
 */
export type EngineLostCause = 'media-server-lost' | 'sip-server-lost';

export const isEngineLost = (cause: HangupCause): cause is EngineLostCause => cause === 'media-server-lost' || cause === 'sip-server-lost';

/** Why an outbound attempt was not answered: neither a hang-up after answer nor a lost engine. */
export type AttemptFailure = Exclude<HangupCause, 'normal' | 'caller-hangup' | EngineLostCause>;

export interface HangupInfo {
  cause: HangupCause;
  /** Who ended it, when known. */
  by: 'local' | 'remote';
  sipStatus?: number;
}

export interface ConferenceJoinOptions {
  /** Joins muted (heard by nobody until unmuted). */
  muted: boolean;
  /**
   * Where the room is mixed when control planes other than this one add members to it too (conferences): without it
   * the room's server is this process's own choice (the first member's).
   */
  place?: RoomPlacement;
}

/**
 * The media server a room is mixed on, agreed by every control plane through the database: given the server the
 * joining leg's media is on (`proposed`) and, when the agreed one cannot be reached from here, that one
 * (`unreachable`), resolves with the agreed server: `proposed` when none was agreed yet or it replaces
 * `unreachable`, else the one already agreed. Servers are named by their event-socket address (host:port).
 */
export type RoomPlacement = (proposed: string, unreachable: string | null) => Promise<string>;

/**
 * A leg's place in a conference room on the media server carrying the leg (a room lives on one server). The
 * room exists while it has members; its name is the control plane's conference sid.
 */
export interface ConferenceMember {
  readonly room: string;
  /** Resolves once, when the leg is out of the room: removed, the room ended, or the leg hung up. */
  readonly left: Promise<void>;
  /** Not heard by the room while muted. */
  setMuted(muted: boolean): Promise<void>;
  /** On hold: not heard, hears nothing of the room, hears `music` in a loop instead (silence when null). */
  hold(music: LocalMedia | null): Promise<void>;
  /** Back in the room, muted or not as before the hold. */
  unhold(): Promise<void>;
  /**
   * Plays `prompts` once, in order, to this member alone (over what it hears; while held without music, the only
   * thing it hears): a hold, wait or announcement document. True once all have played; false when cut short by
   * `stop`, by the member leaving or by its leg ending.
   */
  playAlone(prompts: Prompt[], stop: AbortSignal): Promise<boolean>;
  /** Coaching: heard only by `target` (another member of the room); null makes it heard by everyone again. */
  coach(target: ConferenceMember | null): Promise<void>;
  /** Plays to the whole room once; resolves when it has played (or the member left). */
  announce(media: LocalMedia): Promise<void>;
  /** Starts recording the room's mix into `file` (a WAV); it runs until stopped or the room ends. */
  recordRoom(file: string): Promise<void>;
  /** Stops a room recording started by any member; the file is complete once this resolves. */
  stopRoomRecording(file: string): Promise<void>;
  /** Takes the leg out of the room; the leg stays up. Idempotent. */
  leave(): Promise<void>;
  /** Hangs up every leg in the room (conference ended). */
  endRoom(): Promise<void>;
}

export interface LegEvents {
  dtmf: (digit: string) => void;
  hangup: (info: HangupInfo) => void;
  /** The far end asks for a blind transfer (SIP REFER). With no listener the leg declines it (603). */
  transfer: (asked: TransferAsked) => void;
}

/**
 * A blind transfer the far end asks for (SIP REFER, RFC 3515), answered once: the first accept() or decline()
 * counts. The far end then leaves once told the transfer was done.
 */
export interface TransferAsked {
  /** The Refer-To URI without its angle brackets (its ?headers kept: they carry the transferor's context). */
  readonly target: string;
  /** The Referred-By URI, when the far end sent one. */
  readonly referredBy: string | null;
  /** 202 Accepted, then a first report (NOTIFY 100 Trying); the returned function sends the final status. */
  accept(): Promise<TransferReport>;
  /** 603 Decline. */
  decline(): void;
}

/** Tells the far end how its transfer ended (a NOTIFY with a sipfrag status line, subscription terminated). Never rejects. */
export type TransferReport = (status: 200 | 503) => Promise<void>;

/** A transfer asked with REFER: the far end's answer to it (202: accepted) and the last status its NOTIFYs reported. */
export interface ReferOutcome { referStatus: number | null; notifyStatus: number | null }

/** An answered (or answering) call leg with media. */
export interface CallLeg {
  readonly id: string;
  /**
   * What a successor process needs to end this leg should this one die (drachtio: its SIP dialog ids); stored with
   * the call and handed back to releaseOrphans. null when the leg cannot outlive its process.
   */
  readonly orphanRef: string | null;
  readonly from: string;
  readonly to: string;
  /** Resolves once, when the leg ends for any reason. */
  readonly ended: Promise<HangupInfo>;
  readonly isEnded: boolean;
  on<E extends keyof LegEvents>(event: E, listener: LegEvents[E]): void;
  off<E extends keyof LegEvents>(event: E, listener: LegEvents[E]): void;
  /** Media operations resolve early (never reject) when the leg hangs up meanwhile. */
  say(text: string, opts: SayOptions): Promise<void>;
  play(media: LocalMedia): Promise<void>;
  pause(ms: number): Promise<void>;
  /**
   * Asks the far end to transfer itself to `target` (SIP REFER, Refer-To) and waits for how it went: its NOTIFYs
   * until a final status, the leg's end, or 30 s. Never rejects.
   */
  refer(target: string): Promise<ReferOutcome>;
  /**
   * Sends keys to the far end (RFC 2833 events where its SDP takes them), `w` waiting 0.5 s and `W` 1 s between
   * them (a <Number sendDigits>); resolves about when the last has gone out (sendDigitsMs), or at the leg's end.
   * Never rejects.
   */
  sendDigits(digits: string): Promise<void>;
  /** Plays `tone`'s ringback in a loop until stopMedia() or the leg ends (a <Dial> ringing). */
  ringback(tone: RingTone): Promise<void>;
  collectDigits(opts: CollectOptions): Promise<CollectResult>;
  record(opts: RecordOptions): Promise<RecordResult>;
  /**
   * Ends the media operation under way (say, play, pause, digit collection, record) at once: it resolves as if it
   * had finished, a collection or recording with reason `interrupted`. What runs after it plays whole. Bridges,
   * conferences, streams and call recordings are not touched. Never rejects.
   */
  stopMedia(): Promise<void>;
  startCallRecording(opts: CallRecordingOptions): Promise<CallRecording>;
  /** Joins the room (created on first join); rejects with EngineError when the media server does not confirm in time. */
  joinConference(room: string, opts: ConferenceJoinOptions): Promise<ConferenceMember>;
  /** Connects audio both ways; resolves when either leg ends (the other is left up) or a later bridge replaces this one. */
  bridge(other: CallLeg): Promise<void>;
  /**
   * Opens the call's audio as 20 ms frames (media streams). A bidirectional tap replaces what the caller hears and
   * breaks a bridge; a fork only listens. Rejects with EngineError when the media server cannot provide it.
   */
  openAudio(opts: AudioTapOptions): Promise<AudioTap>;
  /** Ends the leg and frees everything it holds (recordings stopped, bridges broken). Idempotent. */
  hangup(): Promise<void>;
}

/** An incoming call before it is answered. */
export interface IncomingCall {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly source: CallSource;
  /** Resolves when the call ends, however it ends (before answer: 'caller-hangup', rejected, ...). */
  readonly ended: Promise<HangupInfo>;
  /** Sends 180 Ringing. */
  ring(): Promise<void>;
  /**
   * An answer is likely soon (the flow is fetching its markup): the engine may get its media ready meanwhile, so
   * the answer costs less. What it prepared is freed if the call ends unanswered. Never fails; answer() reports.
   */
  prepareAnswer(): void;
  /**
   * Early media (183 Session Progress with the call's media, before any answer): the caller hears `tone`'s
   * ringback until `stop` aborts or the call ends (a <Dial answerOnBridge> ringing its targets). Resolves once it
   * has stopped; never fails (a caller that cannot get early media hears its own phone's ringing instead).
   */
  earlyRingback(tone: RingTone, stop: AbortSignal): Promise<void>;
  /** Early media: starts a call recording before answer (recording policy "from ringing"). */
  startEarlyRecording(opts: CallRecordingOptions): Promise<CallRecording>;
  /** Rejects with EngineError when the caller has already gone. */
  answer(): Promise<CallLeg>;
  reject(reason: 'busy' | 'rejected' | 'unavailable'): Promise<void>;
}

export type OriginateTarget =
  | { kind: 'number'; number: string }
  /** `via`: the vetted address the INVITE is sent to (sip:ADDR:PORT;transport=T), so DNS is not asked again. */
  | { kind: 'sip'; uri: string; username?: string; password?: string; via?: string }
  | { kind: 'client'; identity: string }
  | { kind: 'trunk'; endpointName: string; number: string };

/** The engine's links to carriers now (docs/carriers.md): gateways' answers to OPTIONS, and registrations. */
export interface CarrierLinkStatus {
  gateways: Array<{ carrier: string; gateway: string; up: boolean; lastStatus: number | null; rttMs: number | null; checkedAt: string | null }>;
  registrations: Array<{ carrier: string; state: 'registering' | 'registered' | 'failed'; expiresAt: string | null; lastStatus: number | null; lastError: string | null }>;
}

/** One try of a call to a number through one carrier gateway (a call may fail over through several). */
export interface CarrierAttempt {
  carrier: string;
  /** The gateway as `carrier/transport:host:port`. */
  gateway: string;
  /** The gateway's final answer (200 when answered), null when none came. */
  sipStatus: number | null;
  /** 'no-response': nothing at all came back in time, so the next gateway was tried. */
  outcome: 'answered' | 'no-response' | AttemptFailure;
  /** Whether the next gateway is tried after this one. */
  failover: boolean;
}

export interface OriginateRequest {
  target: OriginateTarget;
  callerId: string;
  timeoutMs: number;
  /** Called once on 180/183. */
  onRinging?: () => void;
  /** Called after each carrier gateway tried, for calls to numbers on engines with carriers. */
  onCarrierAttempt?: (attempt: CarrierAttempt) => void;
  /** Aborting cancels the attempt (resolves as 'canceled'). */
  signal?: AbortSignal;
  /**
   * The leg this call will be bridged with (or the call not answered yet that will be, a <Dial answerOnBridge>):
   * engines with several media servers put its media on the same one.
   */
  bridgeWith?: CallLeg | IncomingCall;
}

export type OriginateResult =
  | { answered: true; leg: CallLeg }
  | { answered: false; cause: AttemptFailure; sipStatus?: number };

export type IncomingCallHandler = (call: IncomingCall) => void;

export interface EnginePort {
  readonly kind: 'sandbox' | 'drachtio';
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): EngineHealth;
  /** Resolves once the SIP layer accepts logins with these credentials; rejects when it cannot. */
  provisionTrunk(trunk: TrunkCredentials): Promise<void>;
  /**
   * Where the SIP layer asks for a trunk's credentials at each login, instead of going by what it was handed: with
   * several control planes a trunk may be created, suspended or revoked through another one.
   */
  lookUpTrunksWith?(lookup: TrunkLookup): void;
  /** Stops accepting the trunk's logins and ends its registrations (revoke, suspend). */
  deprovisionTrunk(endpointName: string): Promise<void>;
  /** One handler receives every incoming call; the control plane decides what to do with it. */
  onIncomingCall(handler: IncomingCallHandler): void;
  /**
   * Takes no new incoming calls or registrations from now on (a node draining: with several control planes on one
   * SIP server, the others get them); calls in progress go on. Idempotent.
   */
  stopIntake(): Promise<void>;
  /**
   * Why this engine cannot place a call to the target at all (no carrier route, unknown client), or null.
   * Lets the API refuse with a clear 500 instead of accepting a call that can only fail.
   */
  routeProblem?(target: OriginateTarget): string | null;
  /** Whether a trunk or seat has a live registration, so a call to it can ring now (the ACD offers calls only then). */
  seatRegistered(endpointName: string): Promise<boolean>;
  /** Places an outbound leg; resolves when it is answered or has definitely failed. Never rejects. */
  originate(req: OriginateRequest): Promise<OriginateResult>;
  /**
   * Ends whatever media and signalling the given control-plane instances (dead ones: see src/recovery) left
   * running on this engine. Engines whose calls cannot outlive their process have nothing to do.
   */
  releaseOrphans(instanceIds: readonly string[], orphanRefs: readonly string[]): Promise<void>;
  /** The engine's media servers (state and load), when it has several to choose from. */
  mediaServers?(): MediaServerStatus[];
  /** Engines with carriers: the state of their gateways' health checks and registrations. */
  carrierLinks?(): CarrierLinkStatus;
  /** Drain (no new calls; calls on it finish) or undrain a media server by name (host:port); false if none has that name. */
  drainMediaServer?(name: string, on: boolean): boolean;
  /** Where the engine keeps rendered speech (the prompt cache, src/media/prompt-cache.ts), when it renders any. */
  usePromptCache?(media: MediaCache): PromptCache;
}

/** up: takes new calls; draining: finishes its calls, takes none; unhealthy: connected but not answering probes. */
export interface MediaServerStatus { name: string; state: 'up' | 'down' | 'unhealthy' | 'draining'; load: number }

export class EngineError extends Error {
  override name = 'EngineError';
  constructor(message: string, readonly engineStatus?: number, readonly engineBody?: string) { super(message); }
}

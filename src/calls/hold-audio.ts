// What a held or waiting member hears, from a URL of the account's (a queue's or conference's wait URL, a
// participant's hold URL): audio on a loop, or a hold document. Declared here, in the kernel, so the ACD and
// conferences can hold members; implemented where markup runs (src/flows/hold-documents.ts): a document is markup.
import type { ConferenceMember } from '../engine/port.js';
import type { MediaLease } from '../media/media-cache.js';
import type { LeaveVerb, PromptVerb, RedirectVerb } from '../markup/index.js';
import type { CallSession } from './session.js';

/** What a hold or wait document may hold (<Leave> only where the holder lets the member leave: a queue). */
export type HoldVerb = PromptVerb | RedirectVerb | LeaveVerb;

/** Audio played on a loop, or a document of HoldVerbs played through and asked for again. */
export type HoldSource = { kind: 'audio'; lease: MediaLease } | { kind: 'document'; url: string; verbs: HoldVerb[] };

export type HoldSourceResult = { ok: true; source: HoldSource } | { ok: false; code: string; reason: string };

/** Fields posted with each request of a hold document besides the call's own (a queue's sid and wait, ...). */
export type HoldParams = () => Record<string, unknown>;

export interface HoldOptions {
  params?: HoldParams;
  /** Lets a document's <Leave> end the hold: called once, when it plays (the member hears nothing more of it). */
  onLeave?: () => void;
}

export interface HoldPlayback {
  /** Ends what the member hears (it stays held: unholding is the holder's); resolves once it is quiet. Idempotent. */
  stop(): Promise<void>;
}

export interface HoldAudio {
  /** What `url` gives, asked for as `session`'s: audio (fetched into the media cache) or a checked hold document. */
  resolve(session: CallSession, url: string, opts?: HoldOptions): Promise<HoldSourceResult>;
  /** Holds `member` with `source` (null: silence) until stop(); the source's lease goes with the playback. */
  start(session: CallSession, member: ConferenceMember, source: HoldSource | null, opts?: HoldOptions): HoldPlayback;
  /** resolve() then start(); a URL that gives nothing usable is in the timeline and the member hears silence. */
  hold(session: CallSession, member: ConferenceMember, url: string | null, opts?: HoldOptions): Promise<HoldPlayback>;
  /** Plays what `url` gives once to each of `members` (a conference announcement), asked for as `session`'s. */
  announce(session: CallSession, members: ConferenceMember[], source: HoldSource): Promise<void>;
  /** resolve() then announce(); a URL that gives nothing usable is in the timeline and nothing is played. */
  announceUrl(session: CallSession, members: ConferenceMember[], url: string, opts?: HoldOptions): Promise<void>;
}

// A <Say>, <Play> or <Pause> made ready to play: its audio fetched (Play) or rendered in the account's vendor voice
// (Say), held by a lease the player releases once done. A Play whose media could not be had has no prompt (the
// verb is skipped); a Say always has one.
import type { Prompt } from '../engine/port.js';
import type { PromptVerb } from '../markup/index.js';
import type { MediaLease } from '../media/media-cache.js';
import { leaseMedia, localMedia } from '../calls/media-lease.js';
import type { CallSession } from '../calls/session.js';
import { sayPrompt } from '../calls/voices.js';

export interface ReadyPrompt { prompt: Prompt | null; lease: MediaLease | null }

/** `verb` ready to play; a Play's URL is taken as it is (resolve a relative one first). */
export async function readyPrompt(session: CallSession, verb: PromptVerb): Promise<ReadyPrompt> {
  switch (verb.verb) {
    case 'pause': return { prompt: { kind: 'pause', seconds: verb.length }, lease: null };
    case 'say': return sayPrompt(session, verb);
    case 'play': {
      const lease = await leaseMedia(session, verb.url);
      return { prompt: lease && { kind: 'play', media: localMedia(lease) }, lease };
    }
  }
}

export function releasePrompts(ready: readonly ReadyPrompt[]): void {
  for (const r of ready) r.lease?.release();
}

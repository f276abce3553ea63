// The voices a call's markup may use (docs/speech.md, Voices): the built-in ones the engine speaks itself (flite),
// and an account's vendor voices, which the control plane renders into local files the engine plays. The calls
// kernel holds the port; src/speech implements it.
import type { Prompt } from '../engine/port.js';
import { isBuiltInVoice, type VoiceBook } from '../markup/index.js';
import type { MediaLease } from '../media/media-cache.js';
import type { CallSession } from './session.js';

export type VoiceAudio = { ok: true; lease: MediaLease } | { ok: false; reason: string };

export interface AccountVoices {
  /** The voice names the account's documents may use: read before each document is parsed. */
  book(accountId: number): Promise<VoiceBook>;
  /** `text` in the account's vendor voice `voice` as a local file (rendered once, then cached); rejects only when the store cannot be read. */
  render(accountId: number, text: string, voice: string): Promise<VoiceAudio>;
}

export type SayPrompt = Extract<Prompt, { kind: 'say' }>;

/**
 * A <Say> as the engine takes it, and the lease on its rendered audio (release it once played). A vendor voice whose
 * endpoint fails is spoken in the default built-in voice, with why on the timeline: a caller hears the words.
 */
export async function sayPrompt(session: CallSession, say: { text: string; voice: string; language: string }): Promise<{ prompt: SayPrompt; lease: MediaLease | null }> {
  const plain: SayPrompt = { kind: 'say', text: say.text, voice: say.voice, language: say.language };
  if (isBuiltInVoice(say.voice)) return { prompt: plain, lease: null };
  const { clock } = session.services;
  const started = clock.now();
  const got = await session.services.voices.render(session.accountId, say.text, say.voice);
  if (!got.ok) {
    session.timeline('voice-failed', { voice: say.voice, reason: got.reason });
    session.log.warn({ voice: say.voice, reason: got.reason }, 'vendor voice failed; spoken in the default voice');
    return { prompt: { ...plain, voice: 'default' }, lease: null };
  }
  session.timeline('voice-ready', { voice: say.voice, via: got.lease.via, latency_ms: clock.now() - started });
  return { prompt: { ...plain, audio: { file: got.lease.file, source: `voice:${say.voice}` } }, lease: got.lease };
}

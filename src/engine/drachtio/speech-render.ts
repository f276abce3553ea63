// The prompt cache's renderer on the real engine: FreeSWITCH speaks the text with the same flite voice a live
// <Say> uses into a recording, on a loopback channel of its own (no caller involved), and the leading silence
// the channel adds before speech starts is cut so a cached prompt is audible as soon as it plays. FreeSWITCH
// writes the file, so the cache directory must be on its host (as for fetched media).
import { readFileSync, writeFileSync } from 'node:fs';
import { decodeWav, encodeWav } from '../../media/wav.js';
import type { SpeechRenderer } from '../../media/prompt-cache.js';
import type { MediaServer } from './fsmrf.js';
import { speakArgs, TTS_ENGINE } from './media.js';

/**
 * Text reaches FreeSWITCH inside a quoted argument of an originate command: only words, digits and plain punctuation
 * go (anything else is spoken live); its apostrophes are escaped.
 */
const RENDERABLE = /^[\p{L}\p{N} .,;:!?'-]{1,500}$/u;
const POLL_MS = 50;
const RENDER_LIMIT_MS = 60_000;
/**
 * -34 dBFS: what the platform's own measurements count as audible. flite's breathy onsets ("Hello") spend their
 * first 40 ms below it; FreeSWITCH takes about 45 ms from a playback command to its first frame of audio, so every
 * inaudible millisecond kept at the start is a millisecond more of silence for the caller.
 */
const AUDIBLE = 0.02;
/** Kept after the last audible sample, so the decay of the last word is not cut. */
const TAIL_MS = 60;

export function freeswitchSpeech(media: () => MediaServer | null): SpeechRenderer {
  return {
    engine: 'freeswitch-flite',
    normalize(text, voice) {
      const args = speakArgs(text, voice);
      return { text: args.text, voice: args.voice };
    },
    async render(text, voice, file) {
      const ms = media();
      if (!ms) throw new Error('no media server connected');
      if (!RENDERABLE.test(text)) throw new Error('text has characters the render command cannot carry');
      // As for call recordings (recording.ts): FreeSWITCH otherwise holds back a recording's first 500 ms, which is
      // all of a short word, and deletes recordings under 3 s.
      const reply = await ms.api('originate {ignore_early_media=true,origination_caller_id_number=prompt-render,RECORD_PRE_BUFFER_FRAMES=0,RECORD_MIN_SEC=0,'
        + `execute_on_answer='record_session ${file}'}`
        + `loopback/answer\\,park/default/inline '&speak(${TTS_ENGINE}|${voice}|${text.replace(/'/g, "\\'")})'`);
      const uuid = /^\+OK ([\w-]+)/.exec(reply.trim())?.[1];
      if (!uuid) throw new Error(`originate: ${reply.trim().slice(0, 200)}`);
      // The channel hangs up when speak finishes, which closes the recording.
      const deadline = Date.now() + RENDER_LIMIT_MS;
      while ((await ms.api(`uuid_exists ${uuid}`)).trim() === 'true') {
        if (Date.now() > deadline) {
          await ms.api(`uuid_kill ${uuid}`);
          throw new Error('render took too long');
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      writeFileSync(file, trimSilence(readFileSync(file)));
    },
  };
}

/** From the first audible sample to a short tail after the last: the silence the channel recorded around the speech goes. */
function trimSilence(wav: Buffer): Buffer {
  const audio = decodeWav(wav);
  const samples = audio.channels[0]!;
  const first = samples.findIndex((s) => Math.abs(s) > AUDIBLE);
  if (first < 0) throw new Error('the render is silent');
  let last = samples.length - 1;
  while (Math.abs(samples[last]!) <= AUDIBLE) last--;
  const end = Math.min(samples.length, last + 1 + Math.round((TAIL_MS / 1000) * audio.sampleRate));
  return encodeWav({ sampleRate: audio.sampleRate, channels: audio.channels.map((c) => c.slice(first, end)) });
}

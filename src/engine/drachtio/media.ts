// How the port's media requests are expressed to FreeSWITCH: flite voices for <Say>, local files for <Play>.
import path from 'node:path';
import type { LocalMedia, Prompt, SayOptions } from '../port.js';
import type { Endpoint } from './fsmrf.js';

export const TTS_ENGINE = 'flite';

/**
 * flite ships a female voice (slt) and male ones (rms, kal, awb); the built-in voice names (src/markup/voices.ts)
 * pick between them, and anything else (an account's vendor voice whose endpoint failed) is the default, slt.
 */
export function fliteVoice(voice: string): string {
  const v = voice.toLowerCase();
  if (['slt', 'rms', 'kal', 'awb'].includes(v)) return v;
  return v === 'man' || v === 'male' ? 'rms' : 'slt';
}

/** The speak app splits on '|' and FreeSWITCH expands ${...}: neither may reach it from customer text. */
export function ttsText(text: string): string {
  return text.replace(/[|]/g, ' ').replace(/\$\{/g, '$ {').replace(/\s+/g, ' ').trim();
}

export function speakArgs(text: string, voice: string): { ttsEngine: string; voice: string; text: string } {
  return { ttsEngine: TTS_ENGINE, voice: fliteVoice(voice), text: ttsText(text) };
}

/**
 * The playback argument for a cached file, or null. Only plain absolute paths pass: FreeSWITCH would otherwise
 * read a URL scheme (fetching it itself), `{var=...}` prefixes or `${...}` expansions out of the string.
 */
export function playTarget(media: LocalMedia): string | null {
  const { file } = media;
  return path.isAbsolute(file) && !/[{}$!\s]|:\/\//.test(file) ? file : null;
}

/** Stops whatever the channel plays or records now. */
export const breakMedia = (ep: Endpoint) => ep.api('uuid_break', `${ep.uuid} all`);

/**
 * Takes a break that reached the channel while nothing was playing: FreeSWITCH keeps it set (CF_BREAK), and it
 * would cut the channel's next media operation at once. 20 ms of silence consumes it.
 */
export const settleBreakOn = (ep: Endpoint) => ep.play('silence_stream://20');

export type MediaStep = { kind: 'file'; file: string } | { kind: 'speak'; args: ReturnType<typeof speakArgs> };

/** A <Say>: its vendor-rendered audio as a file, or flite's speech. */
export function sayStep(text: string, opts: SayOptions): MediaStep | null {
  if (!opts.audio) return { kind: 'speak', args: speakArgs(text, opts.voice) };
  const file = playTarget(opts.audio);
  return file ? { kind: 'file', file } : null;
}

/** One FreeSWITCH playback string per prompt, or a speak request; pauses become silence streams. */
export function promptStep(prompt: Prompt): MediaStep | null {
  switch (prompt.kind) {
    case 'say': return sayStep(prompt.text, prompt);
    case 'play': {
      const file = playTarget(prompt.media);
      return file ? { kind: 'file', file } : null;
    }
    case 'pause': return { kind: 'file', file: `silence_stream://${Math.round(prompt.seconds * 1000)}` };
  }
}

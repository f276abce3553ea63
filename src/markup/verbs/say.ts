import type { Fields } from '../fields.js';
import { isLanguageTag, isVoiceName } from '../values.js';
import { describeVoices, knowsVoice, type VoiceBook } from '../voices.js';
import { leafVerb } from './define.js';

/** Matches TwiML's limit; longer prompts belong in a recording played with <Play>. */
export const MAX_SAY_CHARS = 4096;
/** loop="0" means "until the call ends"; above this a loop count is a mistake, not an intent. */
export const MAX_LOOP = 100;

export const say = leafVerb('Say', 'say', (f, cx) => ({
  verb: 'say',
  text: f.content('text', { max: MAX_SAY_CHARS, expect: `text of at most ${MAX_SAY_CHARS} characters` }),
  voice: voiceOf(f, cx.voices),
  language: f.string('language', { check: isLanguageTag, expect: 'a language tag such as "en-US"' }) ?? 'en-US',
  loop: f.int('loop', 0, MAX_LOOP, 1),
}));

/** The voice named, or 'default'; a name the platform and the account do not have is an error, not silence. */
function voiceOf(f: Fields, voices: VoiceBook): string {
  const voice = f.string('voice', { check: isVoiceName, expect: 'a voice name (letters, digits, ".", "_" or "-")' });
  if (voice === undefined) return 'default';
  if (!knowsVoice(voices, voice)) f.issues.add('unknown_voice', `${f.owner} voice "${voice}" is not a voice here; use ${describeVoices(voices)}`, f.at('voice'));
  return voice;
}

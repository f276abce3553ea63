import { isLanguageTag, isVoiceName } from '../values.js';
import { leafVerb } from './define.js';

/** Matches TwiML's limit; longer prompts belong in a recording played with <Play>. */
export const MAX_SAY_CHARS = 4096;
/** loop="0" means "until the call ends"; above this a loop count is a mistake, not an intent. */
export const MAX_LOOP = 100;

export const say = leafVerb('Say', 'say', (f) => ({
  verb: 'say',
  text: f.content('text', { max: MAX_SAY_CHARS, expect: `text of at most ${MAX_SAY_CHARS} characters` }),
  voice: f.string('voice', { check: isVoiceName, expect: 'a voice name (letters, digits, ".", "_" or "-")' }) ?? 'default',
  language: f.string('language', { check: isLanguageTag, expect: 'a language tag such as "en-US"' }) ?? 'en-US',
  loop: f.int('loop', 0, MAX_LOOP, 1),
}));

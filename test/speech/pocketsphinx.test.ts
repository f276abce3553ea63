// The offline recognizer (pocketsphinx, Debian's US-English model) on telephone audio: words said by espeak-ng in
// six voices, brought to 8 kHz and through G.711 µ-law as a call's tap gives them, recognized against their hints as
// a grammar. Two word sets: the one the wideband stand-in's gain was chosen on (sales, support, billing) and one
// held out (yes, no, agent, operator, cancel). The figures are in docs/speech.md; below 75 % right fails.
import t from 'tap';
import { concat, silence, speak, speechToolsMissing, type Voice } from '../helpers/speech-audio.js';
import { encodeUlaw } from '../../src/media/mulaw.js';
import { hintsGrammar, pocketsphinxRecognizer } from '../../src/speech/pocketsphinx.js';
import { RecognizerError } from '../../src/speech/recognizer.js';
import { NO_RECOGNIZER, speechRecognition } from '../../src/speech/service.js';

const VOICES: Voice[] = [
  { voice: 'en-us', wordsPerMinute: 160, pitch: 50 }, { voice: 'en-us+f3', wordsPerMinute: 150, pitch: 60 },
  { voice: 'en-us+m3', wordsPerMinute: 175, pitch: 40 }, { voice: 'en-gb', wordsPerMinute: 140, pitch: 50 },
  { voice: 'en-us+f5', wordsPerMinute: 180, pitch: 70 }, { voice: 'en-us+m7', wordsPerMinute: 130, pitch: 35 },
];
const SETS = [['sales', 'support', 'billing'], ['yes', 'no', 'agent', 'operator', 'cancel']];

/** A word as a call's audio tap frames: 20 ms of µ-law each, with silence around it. */
function said(word: string, voice: Voice): Buffer[] {
  const bytes = encodeUlaw(concat(silence(300), speak(word, voice), silence(300)));
  return Array.from({ length: Math.floor(bytes.length / 160) }, (_, i) => bytes.subarray(i * 160, (i + 1) * 160));
}

const recognizer = pocketsphinxRecognizer();
const missing = recognizer ? speechToolsMissing() : 'pocketsphinx is not installed (apt-get install pocketsphinx pocketsphinx-en-us)';
const ask = (frames: Buffer[], hints: string[], language = 'en-US') =>
  recognizer!.recognize({ utterance: { frames }, hints, language, model: null, signal: AbortSignal.timeout(15_000) });

t.test('words on a telephone line, recognized against their hints', { skip: missing ?? false }, async (t) => {
  let right = 0;
  let total = 0;
  const wrong: string[] = [];
  for (const words of SETS) {
    for (const voice of VOICES) {
      for (const word of words) {
        const { text, confidence } = await ask(said(word, voice), words);
        total++;
        if (text === word) right++;
        else wrong.push(`${word} (${voice.voice}) → "${text}"`);
        t.equal(confidence, null, 'pocketsphinx gives no confidence');
      }
    }
  }
  t.comment(`${right} of ${total} right; wrong: ${wrong.join('; ')}`);
  t.ok(right / total >= 0.75, `${right} of ${total} right`);
});

t.test('hints become a grammar of what the dictionary knows; other languages are refused', { skip: missing ?? false }, async (t) => {
  const known = new Set(['sales', 'support', 'talk', 'to', 'an', 'agent']);
  t.equal(hintsGrammar(['Sales', 'talk to an agent', 'xyzzy', 'C++'], known), '#JSGF V1.0;\ngrammar hints;\npublic <hint> = sales | talk to an agent;\n');
  t.equal(hintsGrammar(['xyzzy'], known), null, 'nothing usable: no grammar');
  await t.rejects(ask(said('yes', VOICES[0]!), ['yes'], 'de-DE'), { reason: 'unavailable', message: /US English only/ });
});

t.test('without any recognizer, a real call\'s speech gets the configuration error', async (t) => {
  const speech = speechRecognition({ offline: null, accountVendor: async () => null });
  const err = await speech.recognize(1, { utterance: { frames: [Buffer.alloc(160, 0x7f)] }, hints: [], language: 'en-US', model: null, signal: new AbortController().signal }).catch((e: unknown) => e);
  t.ok(err instanceof RecognizerError);
  t.match(err, { reason: 'unavailable', message: NO_RECOGNIZER });
});

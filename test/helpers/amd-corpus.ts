// A corpus of answers for answering-machine detection, built at test time from espeak-ng speech
// (test/helpers/speech-audio.ts): people's short greetings, machines' long ones ending in a beep or in silence, fax
// answer tones; four voices and speeds, through six line conditions (level changes, white noise) and µ-law. The
// same corpus is fed to the detector directly (test/media/answering-machine.test.ts) and over real calls
// (test/engine/drachtio/machine-detection.test.ts).
import type { AnsweredBy } from '../../src/media/answering-machine.js';
import { concat, msOf, overLine, silence, speak, tone, type Voice } from './speech-audio.js';

export interface Answer {
  name: string;
  /** 8 kHz samples from the answer on. */
  audio: Float32Array;
  expect: { enable: AnsweredBy; messageEnd: AnsweredBy };
  /** Where a machine's beep ends, in ms from the answer. */
  beepEndMs?: number;
  /** Where a person's greeting (with the synthesizer's trailing silence) ends, in ms from the answer. */
  greetingEndMs?: number;
}

const VOICES: Voice[] = [
  { voice: 'en-us', wordsPerMinute: 165, pitch: 50 },
  { voice: 'en-us+f3', wordsPerMinute: 150, pitch: 65 },
  { voice: 'en+m3', wordsPerMinute: 180, pitch: 40 },
  { voice: 'en-us+f2', wordsPerMinute: 140, pitch: 55 },
];

const HUMAN = ['Hello?', 'Hello.', 'Yes?', 'Hi, this is Sam.', 'Hello, who is this?', 'Yeah?', 'Good morning.', 'Speaking.',
  'Hello, Jane here.', 'Hi there.', 'This is Mark.', 'Hello, Acme.'];
const MACHINE = [
  'Hi, you have reached the voicemail of Jane Doe. I cannot take your call right now. Please leave a message after the tone.',
  'Hello, this is Mark. I am away from my phone. Leave your name and number and I will call you back.',
  'Thank you for calling Acme Dental. Our office is currently closed. Please leave a message.',
  'You have reached five five five, one two three four. Please leave a message after the beep.',
  'The person you are calling is not available. At the tone, please record your message.',
  'Hey, it is Chris. I cannot talk right now, so leave me a message and I will get back to you.',
  'You have reached the sales team. We are helping other customers. Please leave your details.',
  'Hi, this is Dana from the billing office. I am out until Monday. Leave a message and I will call you.',
];
/** Beeps as answering machines play them: frequency and length. */
const BEEPS = [[1000, 500], [850, 300], [1400, 250], [440, 800], [950, 400], [1000, 1000], [1200, 600], [700, 350]] as const;
/** Line conditions, taken in turn: as recorded; quiet; loud; noisy; quiet and noisy; very noisy (about 20 dB below the speech). */
const LINES = [{}, { gainDb: -18 }, { gainDb: 4 }, { noiseDb: -45 }, { gainDb: -12, noiseDb: -55 }, { noiseDb: -38 }] as const;

export function answerCorpus(): Answer[] {
  const answers: Answer[] = [];
  const line = (i: number) => LINES[i % LINES.length]!;
  HUMAN.forEach((text, i) => {
    const lead = silence(300 + (i % 4) * 150);
    const said = speak(text, VOICES[i % VOICES.length]);
    answers.push({
      name: `human "${text}" ${JSON.stringify(line(i))}`, audio: overLine(concat(lead, said, silence(4000)), { ...line(i), seed: i }),
      expect: { enable: 'human', messageEnd: 'human' }, greetingEndMs: msOf(lead) + msOf(said),
    });
  });
  MACHINE.forEach((text, i) => {
    const lead = silence(400);
    const said = speak(text, VOICES[(i + 1) % VOICES.length]);
    const gap = silence(200 + (i % 3) * 250);
    const [hz, ms] = BEEPS[i]!;
    const before = concat(lead, said, gap);
    answers.push({
      name: `machine with a ${hz} Hz ${ms} ms beep ${JSON.stringify(line(i + 1))}`,
      audio: overLine(concat(before, tone(hz, ms), silence(2000)), { ...line(i + 1), seed: 100 + i }),
      expect: { enable: 'machine_start', messageEnd: 'machine_end_beep' }, beepEndMs: msOf(before) + ms,
    });
  });
  MACHINE.slice(0, 6).forEach((text, i) => {
    const said = speak(text, VOICES[(i + 2) % VOICES.length]);
    answers.push({
      name: `machine ending in silence ${JSON.stringify(line(i + 2))}`, audio: overLine(concat(silence(500), said, silence(4000)), { ...line(i + 2), seed: 200 + i }),
      expect: { enable: 'machine_start', messageEnd: 'machine_end_silence' },
    });
  });
  // Harder ones: a person who says hello twice; a machine whose whole greeting is short, so only its beep tells.
  const hello = speak('Hello?', VOICES[1]);
  answers.push({
    name: 'human saying hello twice', audio: overLine(concat(silence(400), hello, silence(500), hello, silence(4000)), { noiseDb: -50, seed: 50 }),
    expect: { enable: 'human', messageEnd: 'human' }, greetingEndMs: 400 + 2 * msOf(hello) + 500,
  });
  ['Leave a message.', 'Not here. Beep.'].forEach((text, i) => {
    const before = concat(silence(400), speak(text, VOICES[i + 2]), silence(300));
    answers.push({
      name: `machine with a short greeting "${text}" and a beep`, audio: overLine(concat(before, tone(1000, 400), silence(3000)), { seed: 60 + i }),
      expect: { enable: 'machine_start', messageEnd: 'machine_end_beep' }, beepEndMs: msOf(before) + 400,
    });
  });
  [{}, { gainDb: -20 }, { noiseDb: -40 }, { gainDb: -10, noiseDb: -50 }].forEach((l, i) => {
    answers.push({
      name: `fax answer tone ${JSON.stringify(l)}`, audio: overLine(concat(silence(300 + i * 200), tone(2100, 3000, 0.25), silence(1000)), { ...l, seed: 300 + i }),
      expect: { enable: 'fax', messageEnd: 'fax' },
    });
  });
  return answers;
}


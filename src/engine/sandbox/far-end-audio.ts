// What a scripted far end sounds like to a media tap and to answering-machine detection (InCallScript.audio): a
// person's short greeting, a machine's long one ending in a beep or in silence, a fax machine's answer tone. Speech is
// stood in for by noise as loud as speech, with no single tone in it, rising and falling five times a second as
// syllables do (steady noise is line noise to a listener, not speech); every sample is computed from its index, so
// the same frame sounds the same on every run.
import { SAMPLE_RATE } from './audio.js';

export type FarEndAudio = 'person' | 'machine-beep' | 'machine-silence' | 'fax';

type Segment = { kind: 'silence' | 'speech'; ms: number } | { kind: 'tone'; ms: number; hz: number };

const SCRIPTS: Record<FarEndAudio, Segment[]> = {
  person: [{ kind: 'silence', ms: 300 }, { kind: 'speech', ms: 700 }],
  'machine-beep': [{ kind: 'silence', ms: 300 }, { kind: 'speech', ms: 4000 }, { kind: 'silence', ms: 500 }, { kind: 'tone', ms: 500, hz: 1000 }],
  'machine-silence': [{ kind: 'silence', ms: 300 }, { kind: 'speech', ms: 4000 }],
  fax: [{ kind: 'silence', ms: 300 }, { kind: 'tone', ms: 4000, hz: 2100 }],
};
const LEVEL = 0.2;
const SYLLABLES_PER_S = 5;

/** A well-mixed hash of the sample index as a value in [-1, 1). */
function noise(i: number): number {
  let h = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 2147483648 - 1;
}

/** Sample `i` of speech as the sandbox stands it in: noise rising and falling with the syllables. */
export function speechSample(i: number): number {
  return LEVEL * Math.abs(Math.sin((Math.PI * SYLLABLES_PER_S * i) / SAMPLE_RATE)) * noise(i);
}

/** Sample `i` (from the answer on) of `audio`; silence once its script is over. */
function sample(audio: FarEndAudio, i: number): number {
  let start = 0;
  for (const segment of SCRIPTS[audio]) {
    const length = (segment.ms * SAMPLE_RATE) / 1000;
    if (i < start + length) {
      if (segment.kind === 'speech') return speechSample(i);
      return segment.kind === 'tone' ? LEVEL * Math.sin((2 * Math.PI * segment.hz * i) / SAMPLE_RATE) : 0;
    }
    start += length;
  }
  return 0;
}

/** `frameSamples` samples of `audio` from sample `from`. */
export function farEndFrame(audio: FarEndAudio, from: number, frameSamples: number): Float32Array {
  return Float32Array.from({ length: frameSamples }, (_, k) => sample(audio, from + k));
}

// Speech figures, in this process (no telephony: what the control plane itself adds):
//  1. recognizer latency, end of speech → action request, for the offline default: the speech timeout's silence
//     (`auto`, 1 s) plus the recognition of each word (three words, four espeak-ng voices, 8 kHz µ-law as a call's
//     tap gives them) through src/speech/pocketsphinx.ts. Beside it, the bare recognizer on the same audio:
//     `pocketsphinx_continuous` on a 16 kHz WAV written beforehand (what the adapter adds: widening, the WAV, the
//     grammar file, the process start it shares);
//  2. answering-machine detection's decision time for people: from the end of each person's greeting in the
//     corpus (test/helpers/amd-corpus.ts; its audio, the synthesizer's trailing silence included) to the detector's
//     `human`, frame by frame. No baseline: the detector waits for the speech end threshold (1200 ms of silence
//     after the last speech frame) by design.
// Run: npx tsx bench/speech.ts. About half a minute. Skips without pocketsphinx, espeak-ng or sox.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { concat, silence, speak, speechToolsMissing, type Voice } from '../test/helpers/speech-audio.js';
import { answerCorpus } from '../test/helpers/amd-corpus.js';
import { encodeUlaw, decodeUlaw } from '../src/media/mulaw.js';
import { encodeWav } from '../src/media/wav.js';
import { narrowToWideband } from '../src/media/wideband.js';
import { MACHINE_DETECTION_DEFAULTS, MachineDetector } from '../src/media/answering-machine.js';
import { POCKETSPHINX_BINARY, hintsGrammar, pocketsphinxRecognizer } from '../src/speech/pocketsphinx.js';
import { AUTO_SPEECH_END_MS } from '../src/flows/verbs/gather-speech.js';
import { reportRows, type BenchRow } from './row.js';

const WORDS = ['sales', 'support', 'billing'];
const VOICES: Voice[] = [
  { voice: 'en-us', wordsPerMinute: 160, pitch: 50 }, { voice: 'en-us+f3', wordsPerMinute: 150, pitch: 60 },
  { voice: 'en-gb', wordsPerMinute: 140, pitch: 50 }, { voice: 'en-us+m7', wordsPerMinute: 130, pitch: 35 },
];

const recognizer = pocketsphinxRecognizer();
const missing = speechToolsMissing() ?? (recognizer ? null : 'pocketsphinx is not installed');
if (missing) {
  console.log(`speech bench skipped: ${missing}`);
  process.exit(0);
}

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!; };
const ms = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;

const adapter: number[] = [];
const bare: number[] = [];
const dir = mkdtempSync(path.join(tmpdir(), 'ringbase-bench-speech-'));
try {
  const grammar = path.join(dir, 'hints.gram');
  writeFileSync(grammar, hintsGrammar(WORDS, new Set(WORDS))!);
  for (const voice of VOICES) {
    for (const word of WORDS) {
      const bytes = encodeUlaw(concat(silence(300), speak(word, voice), silence(300)));
      const frames = Array.from({ length: Math.floor(bytes.length / 160) }, (_, i) => bytes.subarray(i * 160, (i + 1) * 160));
      const started = process.hrtime.bigint();
      await recognizer!.recognize({ utterance: { frames }, hints: WORDS, language: 'en-US', model: null, signal: AbortSignal.timeout(15_000) });
      adapter.push(ms(started));
      const wav = path.join(dir, `${voice.voice}-${word}.wav`);
      writeFileSync(wav, encodeWav({ sampleRate: 16_000, channels: [narrowToWideband(decodeUlaw(Buffer.concat(frames)))] }));
      const bareStart = process.hrtime.bigint();
      execFileSync(POCKETSPHINX_BINARY, ['-infile', wav, '-jsgf', grammar, '-logfn', '/dev/null'], { stdio: ['ignore', 'pipe', 'ignore'] });
      bare.push(ms(bareStart));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const decided: number[] = [];
for (const answer of answerCorpus().filter((a) => a.expect.enable === 'human' && a.greetingEndMs !== undefined)) {
  const detector = new MachineDetector({ mode: 'enable', ...MACHINE_DETECTION_DEFAULTS });
  let human: number | null = null;
  for (let at = 0; at + 160 <= answer.audio.length && human === null; at += 160) {
    for (const d of detector.push(answer.audio.subarray(at, at + 160))) if (d.answeredBy === 'human') human = d.atMs;
  }
  if (human !== null) decided.push(human - answer.greetingEndMs!);
}

const rows: BenchRow[] = [
  { figure: 'speech gather: end of speech → action request, offline recognizer, p50 (ms)', value: Math.round(AUTO_SPEECH_END_MS + pct(adapter, 50)),
    baseline: Math.round(AUTO_SPEECH_END_MS + pct(bare, 50)), baselineName: 'the same silence + bare pocketsphinx_continuous', unit: 'ms', better: 'lower' },
  { figure: 'speech gather: end of speech → action request, offline recognizer, p95 (ms)', value: Math.round(AUTO_SPEECH_END_MS + pct(adapter, 95)),
    baseline: Math.round(AUTO_SPEECH_END_MS + pct(bare, 95)), baselineName: 'the same silence + bare pocketsphinx_continuous', unit: 'ms', better: 'lower' },
  { figure: `AMD decision for people after their greeting's audio, p50 (ms, n=${decided.length})`, value: Math.round(pct(decided, 50)),
    baseline: null, baselineName: '—', unit: 'ms', better: 'lower' },
  { figure: `AMD decision for people after their greeting's audio, p95 (ms, n=${decided.length})`, value: Math.round(pct(decided, 95)),
    baseline: null, baselineName: '—', unit: 'ms', better: 'lower' },
];
reportRows(rows);

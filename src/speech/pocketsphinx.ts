// The offline recognizer: pocketsphinx with Debian's US-English model (packages pocketsphinx, pocketsphinx-en-us),
// run once per utterance on a 16 kHz WAV of it. Hints become a JSGF grammar of the phrases whose words the model's
// dictionary knows (what the caller can say is then one of them); without usable hints the model's language model
// decodes freely. Nothing leaves the machine. Narrowband accuracy is limited (docs/speech.md).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeUlaw } from '../media/mulaw.js';
import { encodeWav } from '../media/wav.js';
import { narrowToWideband } from '../media/wideband.js';
import { RecognizerError, type Recognition, type RecognitionRequest, type Recognizer } from './recognizer.js';

export const POCKETSPHINX_BINARY = '/usr/bin/pocketsphinx_continuous';
export const POCKETSPHINX_DICTIONARY = '/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict';
const LANGUAGES = new Set(['en', 'en-us']);

/** The offline recognizer, or null when pocketsphinx or its model is not installed here. */
export function pocketsphinxRecognizer(binary = POCKETSPHINX_BINARY, dictionary = POCKETSPHINX_DICTIONARY): Recognizer | null {
  if (!existsSync(binary) || !existsSync(dictionary)) return null;
  let words: Set<string> | undefined;
  // The dictionary (135,000 words) is read on the first speech gather, not at start-up.
  const known = () => (words ??= new Set(readFileSync(dictionary, 'utf8').split('\n').map((line) => line.slice(0, line.indexOf(' ')))));
  return {
    name: 'pocketsphinx',
    async recognize(req: RecognitionRequest): Promise<Recognition> {
      if (!LANGUAGES.has(req.language.toLowerCase())) {
        throw new RecognizerError('unavailable', `the offline recognizer knows US English only (en-US), not ${req.language}`);
      }
      const dir = await mkdtemp(path.join(tmpdir(), 'ringbase-asr-'));
      try {
        const wav = path.join(dir, 'utterance.wav');
        const samples = narrowToWideband(decodeUlaw(Buffer.concat(req.utterance.frames)));
        await writeFile(wav, encodeWav({ sampleRate: 16_000, channels: [samples] }));
        const args = ['-infile', wav, '-logfn', '/dev/null'];
        const grammar = hintsGrammar(req.hints, known());
        if (grammar) {
          await writeFile(path.join(dir, 'hints.gram'), grammar);
          args.push('-jsgf', path.join(dir, 'hints.gram'));
        }
        const text = (await run(binary, args, req.signal)).split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
        // pocketsphinx_continuous prints no score: the confidence is unknown.
        return { text, confidence: null };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A JSGF grammar of the hints the dictionary can spell (lower case, words only); null when none can be used. */
export function hintsGrammar(hints: string[], known: Set<string>): string | null {
  const phrases = hints
    .map((h) => h.toLowerCase().split(/\s+/).filter(Boolean))
    .filter((words) => words.length > 0 && words.every((w) => /^[a-z']+$/.test(w) && known.has(w)))
    .map((words) => words.join(' '));
  if (phrases.length === 0) return null;
  return `#JSGF V1.0;\ngrammar hints;\npublic <hint> = ${[...new Set(phrases)].join(' | ')};\n`;
}

function run(binary: string, args: string[], signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new RecognizerError('timeout', 'the recognition was no longer wanted'));
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; });
    const stop = () => child.kill('SIGKILL');
    signal.addEventListener('abort', stop, { once: true });
    child.on('error', (err) => reject(new RecognizerError('unavailable', `pocketsphinx could not run: ${err.message}`)));
    child.on('close', (code) => {
      signal.removeEventListener('abort', stop);
      if (signal.aborted) reject(new RecognizerError('timeout', 'pocketsphinx took longer than allowed'));
      else if (code !== 0) reject(new RecognizerError('refused', `pocketsphinx exited with status ${code}`));
      else resolve(out);
    });
  });
}

// The prompt cache on a real media cache directory, with a renderer that writes a tone WAV and counts its calls:
// what is rendered when, that a render plays as a file afterwards, and that failures fall back to live speech.
import t, { type Test } from 'tap';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { FakeClock } from '../../src/clock.js';
import { MediaCache } from '../../src/media/media-cache.js';
import { PromptCache, type SpeechRenderer } from '../../src/media/prompt-cache.js';
import { createGuardedClient } from '../../src/net/index.js';
import { tempDir } from '../helpers/harness.js';
import { toneWav } from '../helpers/media-origin.js';

interface Renders { calls: Array<{ text: string; voice: string }>; fail: boolean; gate: Promise<void> }

function setup(t: Test, maxBytes?: number) {
  const client = createGuardedClient({ allowLoopback: true, requireHttps: false });
  t.teardown(() => client.close());
  const dir = path.join(tempDir(t), 'media-cache');
  const media = () => new MediaCache({ dir, client, clock: new FakeClock(), log: pino({ level: 'silent' }), allowLoopback: true, ...(maxBytes ? { maxBytes } : {}) });
  const renders: Renders = { calls: [], fail: false, gate: Promise.resolve() };
  const renderer: SpeechRenderer = {
    engine: 'test-tts',
    normalize: (text, voice) => ({ text: text.replace(/\s+/g, ' ').trim(), voice: voice === 'default' ? 'slt' : voice }),
    async render(text, voice, file) {
      renders.calls.push({ text, voice });
      await renders.gate;
      if (renders.fail) throw new Error('synthesizer down');
      writeFileSync(file, toneWav());
    },
  };
  const logs: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => { logs.push(line); } });
  const cache = media();
  const time = { now: Date.UTC(2026, 0, 1) };
  return { prompts: new PromptCache(cache, renderer, log, () => time.now), cache, media, renderer, renders, logs, time };
}

t.test('a sentence is spoken live until seen twice, then rendered once and played as a file', async (t) => {
  const { prompts, renders } = setup(t);
  t.equal(prompts.take('Welcome to Acme.', 'default'), null, 'first sighting: live');
  t.same(renders.calls, [], 'a one-off sentence costs no render');
  t.equal(prompts.take('Welcome to  Acme. ', 'slt'), null, 'second sighting (same words, same voice once normalized): live');
  t.equal(renders.calls.length, 1, 'the second sighting renders it');
  t.same(renders.calls[0], { text: 'Welcome to Acme.', voice: 'slt' }, 'rendered as the synthesizer would say it');
  await prompts.prepare('Welcome to Acme.', 'default');
  const lease = prompts.take('Welcome to Acme.', 'default');
  t.ok(lease && existsSync(lease.file), 'from then on a file plays');
  t.equal(renders.calls.length, 1, 'rendered once');
  lease!.release();
  t.equal(prompts.take('Welcome to Acme.', 'rms'), null, 'another voice is another prompt');
});

t.test('concurrent first requests render once; a prepared prompt is a file at its first call', async (t) => {
  const { prompts, renders } = setup(t);
  let open!: () => void;
  renders.gate = new Promise((r) => { open = r; });
  const pending = Array.from({ length: 5 }, () => prompts.prepare('Press 1 for sales.', 'default'));
  open();
  t.same(await Promise.all(pending), [true, true, true, true, true]);
  t.equal(renders.calls.length, 1);
  const lease = prompts.take('Press 1 for sales.', 'default');
  t.ok(lease, 'played as a file at the first call');
  lease?.release();
});

t.test('a failed render is logged once, the prompt stays live, and it is tried again only a minute later', async (t) => {
  const { prompts, renders, logs, time } = setup(t);
  renders.fail = true;
  t.same(await Promise.all([1, 2, 3].map(() => prompts.prepare('Goodbye.', 'default'))), [false, false, false]);
  t.equal(logs.filter((l) => /prompt render failed; it is spoken live/.test(l)).length, 1, 'three callers, one render, one log line');
  t.notMatch(logs.join(''), /Goodbye/, 'the words themselves are not logged (they may be personal)');
  t.equal(prompts.take('Goodbye.', 'default'), null);
  renders.fail = false;
  t.equal(await prompts.prepare('Goodbye.', 'default'), false, 'not asked again at once');
  t.equal(renders.calls.length, 1);
  time.now += 60_000;
  t.equal(await prompts.prepare('Goodbye.', 'default'), true);
  const lease = prompts.take('Goodbye.', 'default');
  t.ok(lease, 'rendered on the retry');
  lease?.release();
});

t.test('renders survive a restart and share the media cache bound (least recently used goes first)', async (t) => {
  const size = toneWav().length;
  const { prompts, media, renderer } = setup(t, Math.floor(size * 2.5));
  for (const text of ['One.', 'Two.', 'Three.']) t.equal(await prompts.prepare(text, 'default'), true);
  const again = new PromptCache(media(), renderer, pino({ level: 'silent' }));
  t.equal(again.take('One.', 'default'), null, 'the oldest render was evicted to stay under the bound');
  for (const text of ['Two.', 'Three.']) {
    const lease = again.take(text, 'default');
    t.ok(lease, `${text} kept across the restart`);
    lease?.release();
  }
});

t.test("saving a number's settings renders what they make the platform say", async (t) => {
  const { prompts, renders } = setup(t);
  const { numberPrompts, prerenderNumberPrompts } = await import('../../src/flows/number-prompts.js');
  const { DEFAULT_NUMBER_SETTINGS } = await import('../../src/numbers/settings.js');
  const { VOICEMAIL_GREETING } = await import('../../src/flows/features/voicemail.js');
  const { QUEUE_GREETING } = await import('../../src/flows/features/queue.js');
  const plain = numberPrompts(DEFAULT_NUMBER_SETTINGS);
  t.notOk(plain.includes(VOICEMAIL_GREETING), 'no voicemail phrases for a number that never leads to voicemail');
  const ivr = { enabled: true, prompt: 'For sales press 1, for support press 2.', timeout_seconds: 5, keys: { 1: { action: 'queue' as const, queue: 'sales' }, 2: { action: 'voicemail' as const } } };
  const texts = numberPrompts({ ...DEFAULT_NUMBER_SETTINGS, ivr });
  t.ok(texts.includes(ivr.prompt) && texts.includes(VOICEMAIL_GREETING) && texts.includes(QUEUE_GREETING), 'the menu, and the phrases its keys lead to');
  await prerenderNumberPrompts(prompts, { ...DEFAULT_NUMBER_SETTINGS, ivr });
  t.equal(renders.calls.length, texts.length, 'each rendered once, one after another');
  const lease = prompts.take(ivr.prompt, 'default');
  t.ok(lease, "the menu's first caller hears a file");
  lease?.release();
  await prerenderNumberPrompts(null, DEFAULT_NUMBER_SETTINGS);
  t.pass('an engine without synthesis has nothing to render');
});

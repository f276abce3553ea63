import t, { type Test } from 'tap';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { FakeClock } from '../../src/clock.js';
import { MediaCache, type MediaCacheOptions } from '../../src/media/media-cache.js';
import { createGuardedClient } from '../../src/net/index.js';
import { readWavInfo } from '../../src/media/wav.js';
import { tempDir } from '../helpers/harness.js';
import { startMediaOrigin, toneMp3, toneWav, type MediaReply } from '../helpers/media-origin.js';

const WAV = toneWav();
const MP3 = toneMp3();

async function setup(t: Test, opts: Partial<MediaCacheOptions> = {}) {
  const origin = await startMediaOrigin(t);
  const client = createGuardedClient({ allowLoopback: opts.allowLoopback ?? true, requireHttps: false });
  t.teardown(() => client.close());
  const clock = new FakeClock();
  const dir = path.join(tempDir(t), 'media-cache');
  const make = (more: Partial<MediaCacheOptions> = {}) =>
    new MediaCache({ dir, client, clock, log: pino({ level: 'silent' }), allowLoopback: true, ...opts, ...more });
  return { origin, clock, dir, cache: make(), make };
}

async function leaseOf(cache: MediaCache, url: string) {
  const r = await cache.acquire(url);
  if (!r.ok) throw new Error(`expected a lease, got ${r.code}: ${r.reason}`);
  return r.lease;
}

t.test('fetches once, then plays the local copy; the file is the origin bytes, private to the platform', async (t) => {
  const { origin, cache, dir } = await setup(t);
  origin.on('/hello.wav', { body: WAV });
  const first = await leaseOf(cache, `${origin.origin}/hello.wav`);
  t.equal(first.via, 'fetched');
  t.ok(path.isAbsolute(first.file) && first.file.endsWith('.wav'), 'an absolute .wav path');
  t.same(statSync(first.file).size, WAV.length);
  t.equal(statSync(first.file).mode & 0o777, 0o600, 'file 0600');
  t.equal(statSync(dir).mode & 0o777, 0o700, 'dir 0700');
  first.release();
  const second = await leaseOf(cache, `${origin.origin}/hello.wav`);
  t.equal(second.via, 'hit');
  t.equal(second.file, first.file);
  second.release();
  t.equal(origin.seen.length, 1, 'the origin was asked once');
  t.match(origin.seen[0]!.headers['user-agent'], /^Ringbase/, 'fetched by the control plane');
});

t.test('concurrent requests for one URL share one fetch', async (t) => {
  const { origin, cache } = await setup(t);
  origin.on('/a.wav', { body: WAV });
  const leases = await Promise.all(Array.from({ length: 20 }, () => leaseOf(cache, `${origin.origin}/a.wav`)));
  t.equal(origin.seen.length, 1);
  t.equal(new Set(leases.map((l) => l.file)).size, 1);
  leases.forEach((l) => l.release());
});

t.test('honours max-age and revalidates with the ETag when it expires', async (t) => {
  const { origin, cache, clock } = await setup(t);
  origin.on('/a.wav', (req): MediaReply => (req.headers['if-none-match'] === '"v1"'
    ? { status: 304, headers: { etag: '"v1"', 'cache-control': 'max-age=60' } }
    : { headers: { 'content-type': 'audio/wav', etag: '"v1"', 'cache-control': 'max-age=60' }, body: WAV }));
  (await leaseOf(cache, `${origin.origin}/a.wav`)).release();
  await clock.advance(59_000);
  t.equal((await leaseOf(cache, `${origin.origin}/a.wav`)).via, 'hit', 'fresh for 60 s');
  await clock.advance(2_000);
  const again = await leaseOf(cache, `${origin.origin}/a.wav`);
  t.equal(again.via, 'revalidated');
  t.equal(origin.seen.length, 2);
  t.equal(origin.seen[1]!.headers['if-none-match'], '"v1"');
  t.equal((await leaseOf(cache, `${origin.origin}/a.wav`)).via, 'hit', 'the 304 renewed the copy');
});

t.test('no-cache revalidates on every use; no-store copies are deleted after playing', async (t) => {
  const { origin, cache, dir } = await setup(t);
  origin.on('/nc.wav', { headers: { 'content-type': 'audio/wav', 'cache-control': 'no-cache', 'last-modified': 'Tue, 01 Sep 2026 10:00:00 GMT' }, body: WAV });
  (await leaseOf(cache, `${origin.origin}/nc.wav`)).release();
  (await leaseOf(cache, `${origin.origin}/nc.wav`)).release();
  t.equal(origin.seen.length, 2);
  t.equal(origin.seen[1]!.headers['if-modified-since'], 'Tue, 01 Sep 2026 10:00:00 GMT');

  origin.on('/ns.wav', { headers: { 'content-type': 'audio/wav', 'cache-control': 'no-store' }, body: WAV });
  const once = await leaseOf(cache, `${origin.origin}/ns.wav`);
  t.ok(existsSync(once.file), 'playable while leased');
  const filesBefore = readdirSync(dir).length;
  once.release();
  t.notOk(existsSync(once.file), 'deleted once played');
  t.equal(readdirSync(dir).length, filesBefore - 1);
});

t.test('only audio is accepted: wrong types, HTML pages and mismatched bodies are refused', async (t) => {
  const { origin, cache } = await setup(t);
  const cases: Array<[string, Record<string, string>, Buffer | string, RegExp]> = [
    ['/page', { 'content-type': 'text/html' }, '<html>login</html>', /text\/html is not playable audio/],
    ['/json', { 'content-type': 'application/json' }, '{"a":1}', /application\/json/],
    ['/fake.wav', { 'content-type': 'audio/wav' }, 'not really a wav', /not a WAV or MP3/],
    ['/mismatch', { 'content-type': 'audio/mpeg' }, WAV, /does not match the body, which is WAV/],
  ];
  for (const [p, headers, body, reason] of cases) {
    origin.on(p, { headers, body });
    const r = await cache.acquire(`${origin.origin}${p}`);
    t.match(r, { ok: false, code: 'not_audio', reason }, p);
  }
  origin.on('/song.mp3', { headers: { 'content-type': 'audio/mpeg' }, body: MP3 });
  const mp3 = await leaseOf(cache, `${origin.origin}/song.mp3`);
  const decoded = await readWavInfo(mp3.file);
  t.ok(mp3.file.endsWith('.wav') && decoded.channels === 1 && decoded.durationMs >= 990 && decoded.peak > 0.4, 'MP3 is stored decoded, as WAV');
  origin.on('/garbage.mp3', { headers: { 'content-type': 'audio/mpeg' }, body: Buffer.concat([Buffer.from('ID3'), Buffer.alloc(500, 0x11)]) });
  t.match(await cache.acquire(`${origin.origin}/garbage.mp3`), { ok: false, code: 'not_audio', reason: /no decodable audio/ });
  origin.on('/octet', { headers: { 'content-type': 'application/octet-stream' }, body: WAV });
  t.ok((await leaseOf(cache, `${origin.origin}/octet`)).file.endsWith('.wav'), 'generic types are decided by the bytes');
  t.equal(cache.stats.files, 2, 'refused bodies are not kept');
});

t.test('redirects are not followed, error statuses fail, oversized and slow bodies are cut off', async (t) => {
  const { origin, make } = await setup(t);
  const cache = make({ maxFileBytes: 10_000, timeoutMs: 300 });
  origin.on('/moved', { status: 302, headers: { location: `${origin.origin}/hello.wav` } });
  t.match(await cache.acquire(`${origin.origin}/moved`), { ok: false, code: 'redirect_refused' });
  t.notOk(origin.seen.some((r) => r.path === '/hello.wav'), 'the redirect target was never asked');
  origin.on('/missing', { status: 404, body: 'nope' });
  t.match(await cache.acquire(`${origin.origin}/missing`), { ok: false, code: 'http_status', reason: /HTTP 404/ });
  origin.on('/big.wav', { body: toneWav(2) });
  t.match(await cache.acquire(`${origin.origin}/big.wav`), { ok: false, code: 'response_too_large' });
  origin.on('/slow.wav', { hang: true });
  t.match(await cache.acquire(`${origin.origin}/slow.wav`), { ok: false, code: 'target_timeout' });
});

t.test('refused URLs are never fetched', async (t) => {
  const { origin, make } = await setup(t, { allowLoopback: false });
  origin.on('/hello.wav', { body: WAV });
  const cache = make();
  for (const url of [`${origin.origin}/hello.wav`, `http://localhost:${origin.port}/hello.wav`, 'http://169.254.169.254/x.wav', 'file:///etc/passwd', 'ftp://example.com/a.wav']) {
    const r = await cache.acquire(url);
    t.equal(r.ok, false, url);
  }
  t.equal(origin.seen.length, 0);
});

t.test('least recently used files go first when the cache is over its size; leased files stay', async (t) => {
  const { origin, make, clock } = await setup(t);
  const cache = make({ maxBytes: WAV.length * 2 + 100 });
  for (const name of ['a', 'b', 'c']) origin.on(`/${name}.wav`, { body: WAV });
  const a = await leaseOf(cache, `${origin.origin}/a.wav`);
  await clock.advance(1);
  (await leaseOf(cache, `${origin.origin}/b.wav`)).release();
  await clock.advance(1);
  (await leaseOf(cache, `${origin.origin}/c.wav`)).release();
  t.ok(existsSync(a.file), 'a is leased: kept although oldest');
  t.equal(cache.stats.files, 2);
  t.ok(cache.stats.bytes <= WAV.length * 2 + 100);
  a.release();
  t.equal((await leaseOf(cache, `${origin.origin}/c.wav`)).via, 'hit');
  t.equal((await leaseOf(cache, `${origin.origin}/a.wav`)).via, 'hit');
  t.equal((await leaseOf(cache, `${origin.origin}/b.wav`)).via, 'fetched', 'b was evicted');
});

t.test('a restart keeps the cache; an origin that fails later is covered by the expired copy', async (t) => {
  const { origin, make, clock } = await setup(t);
  origin.on('/a.wav', { headers: { 'content-type': 'audio/wav', 'cache-control': 'max-age=10' }, body: WAV });
  (await leaseOf(make(), `${origin.origin}/a.wav`)).release();
  const restarted = make();
  t.equal(restarted.stats.files, 1);
  t.equal((await leaseOf(restarted, `${origin.origin}/a.wav`)).via, 'hit');
  await clock.advance(11_000);
  origin.on('/a.wav', { status: 503, body: 'down' });
  t.match(await restarted.acquire(`${origin.origin}/a.wav`), { ok: false, code: 'http_status' }, 'an error status is an answer, not an outage');
  await origin.close();
  t.equal((await leaseOf(restarted, `${origin.origin}/a.wav`)).via, 'stale', 'unreachable origin: the old copy plays');
});

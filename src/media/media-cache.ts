// The only way customer media reaches a media server: the control plane fetches it through the guarded client
// (address policy at connect time, no redirects, size and time limits), checks it is audio, and keeps it in a
// bounded on-disk cache, as WAV (MP3 is decoded here). FreeSWITCH is handed a local path and never fetches anything.
// Audio the platform renders itself (synthesized speech: the prompt cache) is kept in the same cache, under the
// same byte bound and least-recently-used eviction, keyed by what determines its content instead of a URL.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../crypto/tokens.js';
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { checkTargetUrl, OutboundError, type GuardedClient, type UrlCheck } from '../net/index.js';
import { audioFormatOf } from './audio-format.js';
import { conditionalHeaders, freshnessOf, validatorsOf } from './freshness.js';
import { mp3ToWav } from './transcode.js';

export interface MediaCacheOptions {
  dir: string;
  client: GuardedClient;
  clock: Clock;
  log: Logger;
  /** Dev/test only, as for every customer URL: loopback targets allowed. */
  allowLoopback: boolean;
  /** Bytes kept on disk before the least recently used files go. Default 512 MiB. */
  maxBytes?: number;
  /** Largest single file accepted. Default 16 MiB. */
  maxFileBytes?: number;
  /** Budget for one fetch (connect, headers, body). Default 10 s. */
  timeoutMs?: number;
  /** Freshness of responses that say nothing about caching. Default 5 minutes. */
  defaultMaxAgeMs?: number;
}

/** A local copy, held until released so eviction never removes a file a media server is playing. */
export interface MediaLease {
  readonly file: string;
  readonly url: string;
  /**
   * hit: served from disk; revalidated: the origin said 304; fetched: downloaded now; stale: origin failed, old
   * copy used; rendered: made now by acquireRendered's renderer.
   */
  readonly via: 'hit' | 'revalidated' | 'fetched' | 'stale' | 'rendered';
  release(): void;
}

export type MediaResult = { ok: true; lease: MediaLease } | { ok: false; code: string; reason: string };

interface Entry {
  url: string;
  file: string;
  bytes: number;
  expiresAt: number;
  etag: string | null;
  lastModified: string | null;
  lastUsed: number;
  pins: number;
  /** no-store copies are played once and deleted, never indexed. */
  indexed: boolean;
}

type Fetched = { ok: true; entry: Entry; via: MediaLease['via'] } | { ok: false; code: string; reason: string };

/** A decoded MP3 is larger than the download (about 8x at 32 kbit/s); the bound scales with the download limit. */
const DECODED_GROWTH = 8;
/** Far in the future but still a JSON number, for the sidecar file. */
const RENDERED_NEVER_EXPIRES = Number.MAX_SAFE_INTEGER;
const MEDIA_ACCEPT = 'audio/wav, audio/x-wav, audio/mpeg;q=0.9, application/octet-stream;q=0.1';

export class MediaCache {
  readonly #o: Required<Omit<MediaCacheOptions, 'client' | 'clock' | 'log'>> & Pick<MediaCacheOptions, 'client' | 'clock' | 'log'>;
  readonly #index = new Map<string, Entry>();
  readonly #inflight = new Map<string, Promise<Fetched>>();
  #bytes = 0;

  constructor(opts: MediaCacheOptions) {
    this.#o = { maxBytes: 512 * 1024 * 1024, maxFileBytes: 16 * 1024 * 1024, timeoutMs: 10_000, defaultMaxAgeMs: 300_000, ...opts };
    mkdirSync(this.#o.dir, { recursive: true, mode: 0o700 });
    this.#load();
  }

  /** The static part of the policy, for refusing bad input where it arrives (API bodies, inline markup). */
  check(url: string): UrlCheck {
    return checkTargetUrl(url, { requireHttps: false, allowLoopback: this.#o.allowLoopback });
  }

  get stats(): { files: number; bytes: number } { return { files: this.#index.size, bytes: this.#bytes }; }

  /** A playable local copy of `url`, fetched once however many calls ask for it at the same time. */
  async acquire(url: string): Promise<MediaResult> {
    const check = this.check(url);
    if (!check.ok) return { ok: false, code: check.code, reason: check.reason };
    const key = check.url.toString();
    const cached = this.#index.get(key);
    if (cached && cached.expiresAt > this.#o.clock.now()) return { ok: true, lease: this.#lease(cached, 'hit') };
    return this.#once(key, () => this.#fetch(key, cached));
  }

  /**
   * A local file made once by `render` (which writes the given path) and kept until evicted: rendered audio never
   * goes stale, as its key names everything that decides its content. Concurrent first requests render once.
   */
  async acquireRendered(key: string, render: (file: string) => Promise<void>): Promise<MediaResult> {
    const cached = this.#index.get(key);
    if (cached) return { ok: true, lease: this.#lease(cached, 'hit') };
    return this.#once(key, () => this.#render(key, render));
  }

  /** Single flight: callers asking for `key` while its work runs share that work's result. */
  async #once(key: string, work: () => Promise<Fetched>): Promise<MediaResult> {
    let pending = this.#inflight.get(key);
    if (!pending) {
      pending = work().finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, pending);
    }
    const got = await pending;
    return got.ok ? { ok: true, lease: this.#lease(got.entry, got.via) } : got;
  }

  /** A lease on what `key` names when it is on disk now, without fetching or rendering anything. */
  leaseIfCached(key: string): MediaLease | null {
    const entry = this.#index.get(key);
    return entry ? this.#lease(entry, 'hit') : null;
  }

  async #render(key: string, render: (file: string) => Promise<void>): Promise<Fetched> {
    const base = path.join(this.#o.dir, sha256Hex(key));
    const file = `${base}.wav`;
    // Renderers pick the format from the extension; without a sidecar, a restart removes a half-written one.
    const tmp = `${base}-${randomBytes(4).toString('hex')}.tmp.wav`;
    try {
      await render(tmp);
      const bytes = statSync(tmp).size;
      if (bytes === 0 || bytes > this.#o.maxFileBytes) throw new Error(`rendered ${bytes} bytes`);
      chmodSync(tmp, 0o600); // written by the renderer (a media server): private like every cached file
      renameSync(tmp, file);
      const entry: Entry = { url: key, file, bytes, expiresAt: RENDERED_NEVER_EXPIRES, etag: null, lastModified: null, lastUsed: this.#o.clock.now(), pins: 0, indexed: true };
      this.#index.set(key, entry);
      this.#bytes += bytes;
      this.#writeMeta(entry);
      return { ok: true, entry, via: 'rendered' };
    } catch (err) {
      rmSync(tmp, { force: true });
      return { ok: false, code: 'render_failed', reason: err instanceof Error ? err.message : String(err) };
    }
  }

  #lease(entry: Entry, via: MediaLease['via']): MediaLease {
    entry.pins++;
    entry.lastUsed = this.#o.clock.now();
    let released = false;
    return {
      file: entry.file, url: entry.url, via,
      release: () => {
        if (released) return;
        released = true;
        entry.pins--;
        if (!entry.indexed && entry.pins === 0) rmSync(entry.file, { force: true });
        else this.#evict();
      },
    };
  }

  async #fetch(url: string, stale: Entry | undefined): Promise<Fetched> {
    const { client, clock, log, timeoutMs, maxFileBytes, defaultMaxAgeMs } = this.#o;
    let res;
    try {
      res = await client.request(url, {
        method: 'GET', timeoutMs, maxResponseBytes: maxFileBytes,
        headers: { accept: MEDIA_ACCEPT, 'user-agent': 'Ringbase/0.1 media', ...(stale ? conditionalHeaders(stale) : {}) },
      });
    } catch (err) {
      const code = err instanceof OutboundError ? err.code : 'fetch_failed';
      const reason = err instanceof Error ? err.message : String(err);
      // A refusal is final; an origin that is merely down may still be served from an expired copy.
      if (stale && code !== 'target_refused' && code !== 'unresolvable') {
        log.warn({ url, code }, 'media origin failed; playing the expired copy');
        return { ok: true, entry: stale, via: 'stale' };
      }
      return { ok: false, code, reason };
    }
    const now = clock.now();
    if (res.status === 304 && stale) {
      stale.expiresAt = freshnessOf(res.headers, now, defaultMaxAgeMs).expiresAt;
      this.#writeMeta(stale);
      return { ok: true, entry: stale, via: 'revalidated' };
    }
    if (res.status >= 300 && res.status < 400) return { ok: false, code: 'redirect_refused', reason: `answered HTTP ${res.status}; redirects are not followed` };
    if (res.status < 200 || res.status >= 300) return { ok: false, code: 'http_status', reason: `answered HTTP ${res.status}` };
    const contentType = res.headers['content-type'];
    const format = audioFormatOf(Array.isArray(contentType) ? contentType[0] : contentType, res.body);
    if (!format.ok) return { ok: false, code: 'not_audio', reason: format.reason };
    let audio = res.body;
    if (format.format === 'mp3') {
      const wav = await mp3ToWav(res.body, maxFileBytes * DECODED_GROWTH);
      if (!wav.ok) return { ok: false, code: 'not_audio', reason: wav.reason };
      audio = wav.wav;
    }
    const fresh = freshnessOf(res.headers, now, defaultMaxAgeMs);
    const base = sha256Hex(url);
    const name = fresh.store ? `${base}.wav` : `${base}-${randomBytes(6).toString('hex')}.wav`;
    const entry: Entry = {
      url, file: path.join(this.#o.dir, name), bytes: audio.length, expiresAt: fresh.expiresAt, ...validatorsOf(res.headers),
      lastUsed: now, pins: 0, indexed: fresh.store,
    };
    this.#writeAtomically(entry.file, audio);
    if (entry.indexed) {
      if (stale) this.#forget(stale, stale.file !== entry.file);
      this.#index.set(url, entry);
      this.#bytes += entry.bytes;
      this.#writeMeta(entry);
    }
    return { ok: true, entry, via: 'fetched' };
  }

  /** Least recently used first; files being played stay. */
  #evict(): void {
    if (this.#bytes <= this.#o.maxBytes) return;
    const candidates = [...this.#index.values()].filter((e) => e.pins === 0).sort((a, b) => a.lastUsed - b.lastUsed);
    for (const entry of candidates) {
      if (this.#bytes <= this.#o.maxBytes) break;
      this.#forget(entry, true);
    }
  }

  #forget(entry: Entry, removeFile: boolean): void {
    this.#index.delete(entry.url);
    this.#bytes -= entry.bytes;
    rmSync(`${entry.file}.json`, { force: true });
    // A pinned file is being played: unlinking it is safe (the reader keeps its open handle).
    if (removeFile) rmSync(entry.file, { force: true });
  }

  #writeAtomically(file: string, data: Buffer | string): void {
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, file);
  }

  #writeMeta(entry: Entry): void {
    const { url, bytes, expiresAt, etag, lastModified, lastUsed } = entry;
    this.#writeAtomically(`${entry.file}.json`, JSON.stringify({ url, bytes, expiresAt, etag, lastModified, lastUsed }));
  }

  /** Rebuilds the index from the sidecar files, so a restart keeps the cache; leftovers of interrupted writes go. */
  #load(): void {
    const names = new Set(readdirSync(this.#o.dir));
    for (const name of names) {
      const file = path.join(this.#o.dir, name);
      const orphan = !name.endsWith('.json') && !names.has(`${name}.json`);
      if (orphan || name.endsWith('.tmp')) { rmSync(file, { force: true }); continue; }
      if (!name.endsWith('.json')) continue;
      const media = file.slice(0, -'.json'.length);
      try {
        const meta = JSON.parse(readFileSync(file, 'utf8')) as Omit<Entry, 'file' | 'pins' | 'indexed'>;
        const bytes = statSync(media).size;
        this.#index.set(meta.url, { ...meta, bytes, file: media, pins: 0, indexed: true });
        this.#bytes += bytes;
      } catch {
        rmSync(file, { force: true });
        rmSync(media, { force: true });
      }
    }
    this.#evict();
  }
}

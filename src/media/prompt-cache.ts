// Synthesized speech, rendered once per (text, voice, engine) into the media cache and played as a file afterwards:
// speech synthesis is most of the time between a webhook's reply and the first audible audio. A prompt not yet on
// disk is spoken live (a caller never waits for a render). Text seen for the second time renders in the background,
// so one-off sentences ("Hello Jane, your code is 4821") do not cost a second synthesis each; prompts the platform
// knows in advance (IVR menus, its own phrases) are rendered before any call by `prepare`. Concurrent first
// requests render once (the media cache's single flight).
import type { Logger } from 'pino';
import type { MediaCache, MediaLease } from './media-cache.js';

export interface SpeechRenderer {
  /** Names the synthesizer, part of the cache key: another engine's audio is another file. */
  readonly engine: string;
  /** What the synthesizer would really say: equal results mean the same audio (idempotent). */
  normalize(text: string, voice: string): { text: string; voice: string };
  /** Writes `text` spoken in `voice` (both normalized) to `file` (a .wav path); rejects when it cannot. */
  render(text: string, voice: string, file: string): Promise<void>;
}

/** Sentences remembered as seen once (and renders that failed); the oldest is forgotten first. */
const SEEN_LIMIT = 4096;
/** A sentence whose render failed is not tried again for this long: a synthesizer failing under load is not asked again and again. */
const RETRY_AFTER_MS = 60_000;

export class PromptCache {
  readonly #seen = new Set<string>();
  readonly #failedAt = new Map<string, number>();

  constructor(
    private readonly media: MediaCache, private readonly renderer: SpeechRenderer, private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  #key(text: string, voice: string): string {
    const n = this.renderer.normalize(text, voice);
    return `speech:${this.renderer.engine}:${n.voice}:${n.text}`;
  }

  /** The rendered file when it is on disk now (hold the lease while it plays); otherwise null, to be spoken live. */
  take(text: string, voice: string): MediaLease | null {
    const key = this.#key(text, voice);
    const lease = this.media.leaseIfCached(key);
    if (!lease) this.#sighted(key, text, voice);
    return lease;
  }

  #sighted(key: string, text: string, voice: string): void {
    if (!this.#seen.delete(key)) {
      this.#seen.add(key);
      if (this.#seen.size > SEEN_LIMIT) this.#seen.delete(this.#seen.values().next().value!);
      return;
    }
    void this.prepare(text, voice);
  }

  /** Renders the prompt if it is not on disk yet; true once it is. Never rejects. */
  async prepare(text: string, voice: string): Promise<boolean> {
    const key = this.#key(text, voice);
    const failedAt = this.#failedAt.get(key);
    if (failedAt !== undefined && this.now() - failedAt < RETRY_AFTER_MS) return false;
    const n = this.renderer.normalize(text, voice);
    const got = await this.media.acquireRendered(key, (file) => this.renderer.render(n.text, n.voice, file));
    if (!got.ok) {
      // Callers that asked at the same time share one render, and one failure: it is logged once.
      if (this.#failedAt.get(key) === failedAt) {
        this.#failedAt.delete(key);
        this.#failedAt.set(key, this.now());
        if (this.#failedAt.size > SEEN_LIMIT) this.#failedAt.delete(this.#failedAt.keys().next().value!);
        this.log.warn({ engine: this.renderer.engine, voice: n.voice, code: got.code, reason: got.reason }, 'prompt render failed; it is spoken live');
      }
      return false;
    }
    this.#failedAt.delete(key);
    got.lease.release();
    return true;
  }
}

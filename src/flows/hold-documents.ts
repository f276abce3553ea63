// Hold and wait documents (Twilio's waitUrl, holdUrl, announceUrl): a URL that gives audio is played on a loop, as
// before; one that gives markup is a document of <Say>, <Play>, <Pause> and <Redirect> (and <Leave> in a queue's
// wait), played to the member alone
// and asked for again each time it ends, so it can say something new each time (a queue position). Audio is fetched
// into the media cache with GET; a URL whose answer is not audio is asked for its document with POST, signed like
// every document request, with the call's fields and the holder's (a queue's sid and wait).
import type { ConferenceMember } from '../engine/port.js';
import type { Verb } from '../markup/index.js';
import type { HoldAudio, HoldOptions, HoldParams, HoldPlayback, HoldSource, HoldSourceResult, HoldVerb } from '../calls/hold-audio.js';
import type { CallSession } from '../calls/session.js';
import { localMedia } from '../calls/media-lease.js';
import { readyPrompt } from './prompts.js';
import { sleepUnless, whenAborted } from '../waits.js';
import { fetchMarkup } from './markup-fetch.js';

const HOLD_VERBS = new Set<Verb['verb']>(['say', 'play', 'pause', 'redirect', 'leave']);
const isHoldVerb = (v: Verb): v is HoldVerb => HOLD_VERBS.has(v.verb);
/** Whether the holder takes `verb`: <Leave> only where the member may leave (a queue's wait). */
const holds = (opts: HoldOptions) => (v: Verb): v is HoldVerb => isHoldVerb(v) && (v.verb !== 'leave' || opts.onLeave !== undefined);
/** A document that plays nothing (only <Redirect>s, or nothing at all) is not asked for again sooner than this. */
const MIN_PASS_MS = 1_000;
/** <Redirect>s followed in one pass before the document counts as failed: a loop of redirects plays nothing. */
const MAX_REDIRECTS = 10;

type Fetched = { ok: true; url: string; verbs: HoldVerb[] } | { ok: false; code: string; reason: string };

async function fetchDocument(session: CallSession, url: string, method: 'POST' | 'GET', opts: HoldOptions): Promise<Fetched> {
  const { call } = session;
  const got = await fetchMarkup(session.services.http, {
    accountId: session.accountId, callSid: session.sid, url, method, format: 'xml',
    voices: () => session.services.voices.book(session.accountId),
    payload: { kind: 'json', body: { call_sid: session.sid, from: call.from, to: call.to, direction: call.direction, ...(opts.params ?? NO_PARAMS)() } },
  }, (kind, detail) => session.timeline(kind, detail));
  if (!got.ok) return { ok: false, code: 'document_failed', reason: got.reason };
  const takes = holds(opts);
  const other = got.verbs.find((v) => !takes(v));
  if (other) {
    const allowed = `<Say>, <Play>, <Pause>, <Redirect>${opts.onLeave ? ' and <Leave>' : ''}`;
    return { ok: false, code: 'not_a_hold_document', reason: `a ${opts.onLeave ? 'wait' : 'hold'} document here takes ${allowed}, not <${other.verb}>` };
  }
  return { ok: true, url: got.url, verbs: got.verbs.filter(takes) };
}

type PassEnd = { kind: 'ended' } | { kind: 'redirect'; url: string; method: 'POST' | 'GET' } | { kind: 'stopped' };

const NO_PARAMS: HoldParams = () => ({});

/** Plays one document's verbs to `member` alone, in order, each as often as its `loop` says (0: until stopped). */
async function playVerbs(session: CallSession, member: ConferenceMember, doc: { url: string; verbs: HoldVerb[] }, stop: AbortSignal, onLeave?: () => void): Promise<PassEnd> {
  for (const verb of doc.verbs) {
    if (verb.verb === 'leave') {
      // Not awaited: leaving stops this playback, which waits for this loop to return.
      onLeave?.();
      return { kind: 'stopped' };
    }
    if (verb.verb === 'redirect') {
      const url = URL.canParse(verb.url, doc.url) ? new URL(verb.url, doc.url).toString() : null;
      if (!url) { session.timeline('hold-document-failed', { url: doc.url, reason: `<Redirect> "${verb.url}" is not a URL` }); return { kind: 'stopped' }; }
      return { kind: 'redirect', url, method: verb.method };
    }
    const { prompt, lease } = await readyPrompt(session, verb.verb === 'play' && URL.canParse(verb.url, doc.url) ? { ...verb, url: new URL(verb.url, doc.url).toString() } : verb);
    try {
      const loop = verb.verb === 'pause' ? 1 : verb.loop;
      for (let i = 0; prompt && (loop === 0 || i < loop); i++) {
        if (!(await member.playAlone([prompt], stop))) return { kind: 'stopped' };
      }
    } finally {
      lease?.release();
    }
  }
  return { kind: 'ended' };
}

/** Plays the document, then asks for it (or where it redirected) again, until `stop`. */
async function loopDocument(session: CallSession, member: ConferenceMember, first: { url: string; verbs: HoldVerb[] }, stop: AbortSignal, opts: HoldOptions): Promise<void> {
  const { clock } = session.services;
  let doc = first;
  let next: { url: string; method: 'POST' | 'GET' } = { url: first.url, method: 'POST' };
  for (let redirects = 0; !stop.aborted;) {
    const started = clock.now();
    const end = await playVerbs(session, member, doc, stop, opts.onLeave);
    if (end.kind === 'stopped') return;
    if (end.kind === 'redirect') {
      if (++redirects > MAX_REDIRECTS) {
        session.timeline('hold-document-failed', { url: end.url, reason: `more than ${MAX_REDIRECTS} redirects without a pause` });
        return;
      }
      next = end;
    } else {
      redirects = 0;
    }
    const elapsed = clock.now() - started;
    if (elapsed < MIN_PASS_MS && !(await sleepUnless(clock, MIN_PASS_MS - elapsed, stop))) return;
    const got = await fetchDocument(session, next.url, next.method, opts);
    if (stop.aborted) return;
    if (!got.ok) {
      // The member stays on hold in silence: a document that failed once is not asked for again and again.
      session.timeline('hold-document-failed', { url: next.url, code: got.code, reason: got.reason });
      return;
    }
    doc = got;
  }
}

async function play(session: CallSession, member: ConferenceMember, source: HoldSource | null, stop: AbortSignal, opts: HoldOptions): Promise<void> {
  if (source?.kind === 'audio') {
    try {
      await member.hold(localMedia(source.lease));
      await whenAborted(stop);
    } finally {
      source.lease.release();
    }
    return;
  }
  await member.hold(null);
  if (source) await loopDocument(session, member, source, stop, opts);
}

export const holdDocuments: HoldAudio = {
  async resolve(session, url, opts = {}): Promise<HoldSourceResult> {
    const audio = await session.services.media.acquire(url);
    if (audio.ok) return { ok: true, source: { kind: 'audio', lease: audio.lease } };
    if (audio.code !== 'not_audio' && !(audio.code === 'http_status' && audio.reason.includes('HTTP 405'))) return audio;
    const doc = await fetchDocument(session, url, 'POST', opts);
    return doc.ok ? { ok: true, source: { kind: 'document', url: doc.url, verbs: doc.verbs } } : doc;
  },

  start(session, member, source, opts = {}): HoldPlayback {
    const stopping = new AbortController();
    const playing = play(session, member, source, stopping.signal, opts)
      .catch((err: unknown) => session.log.warn({ err }, 'hold audio failed; the member hears silence'));
    return {
      async stop() {
        stopping.abort();
        await playing;
      },
    };
  },

  async hold(session, member, url, opts = {}): Promise<HoldPlayback> {
    return this.start(session, member, url ? await usableSource(session, url, opts) : null, opts);
  },

  async announce(session, members, source): Promise<void> {
    if (source.kind === 'audio') {
      try {
        await members[0]?.announce(localMedia(source.lease));
      } finally {
        source.lease.release();
      }
      return;
    }
    const never = new AbortController().signal;
    await Promise.all(members.map((member) => playVerbs(session, member, source, never)));
  },

  async announceUrl(session, members, url, opts = {}): Promise<void> {
    const source = await usableSource(session, url, opts);
    if (source) await this.announce(session, members, source);
  },
};

/** What `url` gives (holdDocuments.resolve), or null when it gives nothing usable: the timeline says why. */
async function usableSource(session: CallSession, url: string, opts: HoldOptions): Promise<HoldSource | null> {
  const got = await holdDocuments.resolve(session, url, opts);
  if (got.ok) return got.source;
  session.timeline('hold-audio-skipped', { url, code: got.code, reason: got.reason });
  return null;
}

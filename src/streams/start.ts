// Starting a media stream for a call (<Connect><Stream> or <Start><Stream>): the URL under the target policy,
// the peer's socket, the call's audio; then the stream runs on its own. Every failure and every end is logged
// with its reason, put on the call's timeline and told to the stream's statusCallback; none touches the call.
import { newSid } from '../crypto/tokens.js';
import type { AudioTapMode, AudioTrack } from '../engine/port.js';
import { redactUrl } from '../log-redaction.js';
import type { StreamNoun } from '../markup/index.js';
import { SIGNATURE_HEADER } from '../net/index.js';
import { checkStreamUrl, signedStreamUrl } from '../net/stream-url.js';
import type { CallSession } from '../calls/session.js';
import { isStreamError, MediaStream, type StreamEnd } from './media-stream.js';
import { openPeer } from './peer.js';
import { accountSidOf } from './protocol.js';

export type StreamStart = { ok: true; stream: MediaStream } | { ok: false; reason: string };

const TRACKS: Record<StreamNoun['track'], AudioTrack[]> = { inbound_track: ['inbound'], outbound_track: ['outbound'], both_tracks: ['inbound', 'outbound'] };

export interface StreamRequest {
  stream: StreamNoun;
  mode: AudioTapMode;
  /** The statusCallback resolved against the document, or null. */
  statusCallback: string | null;
}

export async function startStream(session: CallSession, req: StreamRequest): Promise<StreamStart> {
  const { stream, mode } = req;
  const streamSid = newSid('MZ');
  const name = stream.name ?? streamSid;
  const where = { stream_sid: streamSid, name, url: redactUrl(stream.url) };
  const status = (event: 'stream-started' | 'stream-stopped' | 'stream-error', error?: string) => sendStatus(session, req, { streamSid, name, event, error });
  const refuse = (reason: string): StreamStart => {
    session.timeline('stream-error', { ...where, reason });
    session.log.warn({ ...where, reason }, 'media stream not started');
    status('stream-error', reason);
    return { ok: false, reason };
  };

  const check = checkStreamUrl(stream.url, session.services.urls);
  if (!check.ok) return refuse(`refused (${check.code}): ${check.reason}`);
  const leg = await session.answer();
  if (leg.isEnded) return { ok: false, reason: 'the call ended' };
  // Signed with the account's secret over "<t>.<the whole URL>" (docs/media-streams.md#security): a signature
  // opens only the URL it was made for.
  const signature = await session.services.http.signatureFor(session.accountId, signedStreamUrl(check.url));
  const peer = await openPeer(check.url, { allowLoopback: session.services.urls.allowLocalTargets, headers: { [SIGNATURE_HEADER]: signature } });
  if (!peer.ok) return refuse(peer.reason);
  let tap;
  try {
    tap = await leg.openAudio({ mode });
  } catch (err) {
    peer.ws.terminate();
    return refuse(`the call's audio is not available: ${(err as Error).message}`);
  }
  const customParameters = Object.fromEntries(stream.parameters.map((p) => [p.name, p.value]));
  const running = new MediaStream(peer.ws, tap, leg, {
    // An engine that forks the mix gives one track whatever was asked: the first of them, and `start` says so.
    streamSid, accountSid: accountSidOf(session.accountId), callSid: session.sid, tracks: tap.mixed ? TRACKS[stream.track].slice(0, 1) : TRACKS[stream.track], customParameters,
  });
  session.timeline('stream-started', { ...where, mode, track: stream.track });
  session.log.info({ ...where, mode }, 'media stream started');
  status('stream-started');
  void running.ended.then((end) => {
    session.timeline(isStreamError(end.reason) ? 'stream-error' : 'stream-stopped', { ...where, reason: end.reason, ...(end.detail ? { detail: end.detail } : {}) });
    if (isStreamError(end.reason)) session.log.warn({ ...where, ...end }, 'media stream ended by a bad peer');
    else session.log.info({ ...where, ...end }, 'media stream ended');
    status(isStreamError(end.reason) ? 'stream-error' : 'stream-stopped', isStreamError(end.reason) ? describeEnd(end) : undefined);
  });
  return { ok: true, stream: running };
}

export const describeEnd = (end: StreamEnd): string => (end.detail ? `${end.reason}: ${end.detail}` : end.reason);

/** Twilio's stream status callback (StreamEvent etc.), in this platform's JSON callback style; best effort. */
function sendStatus(session: CallSession, req: StreamRequest, e: { streamSid: string; name: string; event: string; error?: string | undefined }): void {
  if (!req.statusCallback) return;
  const body: Record<string, unknown> = {
    account_sid: accountSidOf(session.accountId), call_sid: session.sid, stream_sid: e.streamSid, stream_name: e.name, stream_event: e.event,
    timestamp: new Date(session.services.clock.now()).toISOString(), ...(e.error ? { stream_error: e.error } : {}),
  };
  session.services.http.send({
    accountId: session.accountId, url: req.statusCallback, method: req.stream.statusCallbackMethod, payload: { kind: 'json', body }, timeoutMs: 5_000,
  }).catch((err: unknown) => session.log.info({ err: (err as Error).message, url: redactUrl(req.statusCallback!) }, 'stream status callback failed'));
}

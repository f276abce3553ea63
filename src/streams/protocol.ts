// Twilio Media Streams, message for message (https://www.twilio.com/docs/voice/media-streams/websocket-messages):
// what the platform sends (connected, start, media, dtmf, mark, stop) and what it accepts from a peer (media,
// mark, clear). Numbers that Twilio sends as strings (sequenceNumber, chunk, timestamp) are strings here too,
// so existing serializers (Pipecat, Vocode) parse them unchanged.
import type { AudioTrack } from '../engine/port.js';

export interface StartInfo {
  streamSid: string;
  accountSid: string;
  callSid: string;
  tracks: AudioTrack[];
  customParameters: Record<string, string>;
}

export const MEDIA_FORMAT = { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } as const;

/** The largest message a peer may send (a media message of ~4 s of audio); bigger ones end the stream. */
export const MAX_PEER_MESSAGE_BYTES = 64 * 1024;
const MAX_MARK_NAME = 256;

export const connectedMessage = () => ({ event: 'connected', protocol: 'Call', version: '1.0.0' });

export function startMessage(seq: number, s: StartInfo): object {
  return {
    event: 'start', sequenceNumber: String(seq),
    start: { accountSid: s.accountSid, streamSid: s.streamSid, callSid: s.callSid, tracks: s.tracks, customParameters: s.customParameters, mediaFormat: MEDIA_FORMAT },
    streamSid: s.streamSid,
  };
}

export function mediaMessage(seq: number, streamSid: string, track: AudioTrack, chunk: number, timestampMs: number, payload: Buffer): object {
  return {
    event: 'media', sequenceNumber: String(seq),
    media: { track, chunk: String(chunk), timestamp: String(timestampMs), payload: payload.toString('base64') },
    streamSid,
  };
}

export function dtmfMessage(seq: number, streamSid: string, digit: string): object {
  return { event: 'dtmf', streamSid, sequenceNumber: String(seq), dtmf: { track: 'inbound_track', digit } };
}

export function markMessage(seq: number, streamSid: string, name: string): object {
  return { event: 'mark', sequenceNumber: String(seq), streamSid, mark: { name } };
}

export function stopMessage(seq: number, s: Pick<StartInfo, 'streamSid' | 'accountSid' | 'callSid'>): object {
  return { event: 'stop', sequenceNumber: String(seq), streamSid: s.streamSid, stop: { accountSid: s.accountSid, callSid: s.callSid } };
}

export type PeerMessage =
  | { event: 'media'; payload: Buffer }
  | { event: 'mark'; name: string }
  | { event: 'clear' };

export type Parsed = { ok: true; message: PeerMessage | null } | { ok: false; problem: string };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * One text message from the peer. Events this platform does not act on are ignored (null), as Twilio does;
 * anything that is not a well-formed message of a known event, or names another stream, is a problem.
 */
export function parsePeerMessage(text: string, streamSid: string): Parsed {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'a message is not JSON' };
  }
  if (!isObject(msg) || typeof msg.event !== 'string') return { ok: false, problem: 'a message has no "event"' };
  if (msg.streamSid !== undefined && msg.streamSid !== streamSid) return { ok: false, problem: `a "${msg.event}" message names another stream` };
  switch (msg.event) {
    case 'media': {
      const payload = isObject(msg.media) ? msg.media.payload : undefined;
      if (typeof payload !== 'string' || !BASE64.test(payload)) return { ok: false, problem: 'a "media" message has no base64 payload' };
      return { ok: true, message: { event: 'media', payload: Buffer.from(payload, 'base64') } };
    }
    case 'mark': {
      const name = isObject(msg.mark) ? msg.mark.name : undefined;
      if (typeof name !== 'string' || name.length > MAX_MARK_NAME) return { ok: false, problem: `a "mark" message needs a name of at most ${MAX_MARK_NAME} characters` };
      return { ok: true, message: { event: 'mark', name } };
    }
    case 'clear':
      return { ok: true, message: { event: 'clear' } };
    default:
      return { ok: true, message: null };
  }
}

/** Twilio account sids are AC + 32 hex digits; an account here is a number, written the same way. */
export function accountSidOf(accountId: number): string {
  return `AC${accountId.toString(16).padStart(32, '0')}`;
}

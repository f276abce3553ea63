// One media stream while it runs: the call's audio (an AudioTap) pumped to a connected peer in Twilio's
// protocol, and the peer's audio, marks and clears applied to the tap. It ends exactly once, with a reason:
// whichever side stops first, or a peer that breaks the rules (malformed or oversized messages, not reading,
// sending audio far faster than real time). Ending never touches the call itself.
import type WebSocket from 'ws';
import { AUDIO_FRAME_MS, type AudioFrame, type AudioTap, type AudioTrack, type CallLeg } from '../engine/port.js';
import { QueueFullError } from '../engine/paced-tap.js';
import {
  connectedMessage, dtmfMessage, markMessage, mediaMessage, parsePeerMessage, startMessage, stopMessage, type StartInfo,
} from './protocol.js';

/**
 * Bytes the platform lets pile up towards a peer that does not read (beyond what the kernel buffers): about
 * 30 s of one track. Past it the stream ends instead of growing memory without bound.
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;

export type StreamEndReason =
  | 'peer-closed' // the peer closed the socket (the normal end of <Connect><Stream>)
  | 'stopped' // <Stop><Stream>, the API or the end of the verb
  | 'call-ended'
  | 'protocol-error' // a malformed message, or one naming another stream
  | 'message-too-large'
  | 'peer-not-reading'
  | 'audio-overflow' // the peer queued more audio than a tap holds
  | 'peer-error'; // the socket failed (reset, TLS error mid-stream)

export interface StreamEnd { reason: StreamEndReason; detail?: string }

/** Reasons that are the peer's fault: logged as warnings and reported as stream errors. */
export const isStreamError = (reason: StreamEndReason): boolean =>
  ['protocol-error', 'message-too-large', 'peer-not-reading', 'audio-overflow', 'peer-error'].includes(reason);

/** WebSocket close codes (RFC 6455) for the peer to read why. */
const CLOSE_CODE: Record<StreamEndReason, number> = {
  'peer-closed': 1000, stopped: 1000, 'call-ended': 1000, 'protocol-error': 1002, 'message-too-large': 1009,
  'peer-not-reading': 1008, 'audio-overflow': 1008, 'peer-error': 1011,
};

export class MediaStream {
  readonly ended: Promise<StreamEnd>;
  #seq = 0;
  readonly #chunks = new Map<AudioTrack, number>();
  #end: StreamEnd | null = null;
  #resolve!: (end: StreamEnd) => void;
  readonly #detach: Array<() => void> = [];

  constructor(
    private readonly ws: WebSocket,
    private readonly tap: AudioTap,
    leg: CallLeg,
    private readonly info: StartInfo,
  ) {
    this.ended = new Promise((resolve) => { this.#resolve = resolve; });
    const onFrame = (frame: AudioFrame) => this.#frame(frame);
    const onMark = (name: string) => this.#send(markMessage(++this.#seq, info.streamSid, name));
    const onDtmf = (digit: string) => this.#send(dtmfMessage(++this.#seq, info.streamSid, digit));
    tap.on('frame', onFrame);
    tap.on('mark', onMark);
    leg.on('dtmf', onDtmf);
    this.#detach.push(() => { tap.off('frame', onFrame); tap.off('mark', onMark); leg.off('dtmf', onDtmf); });
    ws.on('message', (data, isBinary) => this.#receive(data, isBinary));
    ws.on('close', (code) => this.#finish({ reason: 'peer-closed', detail: `close code ${code}` }));
    ws.on('error', (err: Error & { code?: string }) => {
      const tooLarge = err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';
      this.#finish({ reason: tooLarge ? 'message-too-large' : 'peer-error', detail: err.message });
    });
    void tap.closed.then(() => this.#finish({ reason: leg.isEnded ? 'call-ended' : 'stopped', detail: 'the audio ended' }));
    this.#send(connectedMessage());
    this.#send(startMessage(++this.#seq, info));
  }

  get sid(): string { return this.info.streamSid; }
  get isEnded(): boolean { return this.#end !== null; }

  /** Ends the stream from the platform's side (<Stop>); the peer gets `stop`. */
  stop(): Promise<StreamEnd> {
    this.#finish({ reason: 'stopped' });
    return this.ended;
  }

  #frame(frame: AudioFrame): void {
    // A mixed fork's one stream is the first track asked for (start.tracks says so; see startStream).
    if (this.tap.mixed) frame = { ...frame, track: this.info.tracks[0]! };
    if (!this.info.tracks.includes(frame.track)) return;
    const chunk = (this.#chunks.get(frame.track) ?? 0) + 1;
    this.#chunks.set(frame.track, chunk);
    // Timestamps count the audio itself (ms since the stream started), so they never jump with timer jitter.
    this.#send(mediaMessage(++this.#seq, this.info.streamSid, frame.track, chunk, (chunk - 1) * AUDIO_FRAME_MS, frame.payload));
  }

  #receive(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.isEnded) return;
    if (isBinary) return this.#finish({ reason: 'protocol-error', detail: 'a binary message (the protocol is JSON text)' });
    const parsed = parsePeerMessage(data.toString(), this.info.streamSid);
    if (!parsed.ok) return this.#finish({ reason: 'protocol-error', detail: parsed.problem });
    const msg = parsed.message;
    if (!msg) return;
    try {
      if (msg.event === 'media') this.tap.send(msg.payload);
      else if (msg.event === 'mark') this.tap.mark(msg.name);
      else this.tap.clear();
    } catch (err) {
      if (err instanceof QueueFullError) return this.#finish({ reason: 'audio-overflow', detail: err.message });
      // A fork only listens: audio sent to it is a protocol error.
      this.#finish({ reason: 'protocol-error', detail: (err as Error).message });
    }
  }

  #send(msg: object): void {
    if (this.isEnded || this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > MAX_UNSENT_BYTES) {
      this.#finish({ reason: 'peer-not-reading', detail: `more than ${MAX_UNSENT_BYTES} bytes waiting for the peer to read` });
      return;
    }
    this.ws.send(JSON.stringify(msg));
  }

  #finish(end: StreamEnd): void {
    if (this.#end) return;
    // The peer hears `stop` whenever it can still read it.
    if (end.reason !== 'peer-closed' && end.reason !== 'peer-not-reading' && end.reason !== 'peer-error') {
      this.#send(stopMessage(++this.#seq, this.info));
    }
    this.#end = end;
    for (const detach of this.#detach) detach();
    if (end.reason === 'peer-not-reading' || end.reason === 'peer-error') this.ws.terminate();
    else if (this.ws.readyState === this.ws.OPEN) this.ws.close(CLOSE_CODE[end.reason], end.reason);
    this.ws.removeAllListeners('message');
    void this.tap.close().finally(() => this.#resolve(end));
  }
}

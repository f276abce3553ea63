// The control plane's end of a media stream on the real engine: one UDP socket speaking PCMU RTP with a
// FreeSWITCH endpoint. Inbound packets pass a small reorder buffer and are re-cut into 20 ms frames; outbound
// frames (already paced by the tap) get consecutive sequence numbers, timestamps from the playout grid, one SSRC.
import { randomInt } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { decodeRtp, encodeRtp, PT_PCMU, seqDelta } from '../../media/rtp.js';
import { AUDIO_FRAME_BYTES, AUDIO_FRAME_MS } from '../port.js';

/** Packets held while waiting for a missing one (3 × 20 ms): UDP on one host rarely reorders further. */
const REORDER_PACKETS = 3;

export interface RtpAddress { address: string; port: number }

export class RtpGateway {
  readonly #socket: Socket;
  readonly #ssrc = randomInt(0, 2 ** 32);
  #seq = randomInt(0, 0x10000);
  #timestamp = randomInt(0, 2 ** 32);
  /** The playout grid time of the last frame sent; null before the first. */
  #lastAt: number | null = null;
  #remote: RtpAddress | null = null;
  /** Inbound: the next sequence number expected (null before the first packet) and the early ones held. */
  #expected: number | null = null;
  readonly #held = new Map<number, Buffer>();
  #pending = Buffer.alloc(0);
  #closed = false;
  /** Counters for logs and tests. */
  readonly stats = { received: 0, late: 0, lost: 0, sent: 0 };

  private constructor(socket: Socket, private readonly onFrame: (payload: Buffer) => void) {
    this.#socket = socket;
    socket.on('message', (msg) => this.#receive(msg));
  }

  /** A socket on `address`, on a port the system picks. */
  static async open(address: string, onFrame: (payload: Buffer) => void): Promise<RtpGateway> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, address, () => { socket.off('error', reject); resolve(); });
    });
    // Errors after bind (ICMP unreachable while FreeSWITCH tears down) are not worth a crash.
    socket.on('error', () => undefined);
    return new RtpGateway(socket, onFrame);
  }

  get port(): number { return this.#socket.address().port; }

  /** Where FreeSWITCH listens for this stream's RTP (its SDP answer). */
  connect(remote: RtpAddress): void { this.#remote = remote; }

  /**
   * One 20 ms frame towards FreeSWITCH, `at` its time on the tap's playout grid (ms). After a pause (the peer had
   * nothing queued) the timestamp jumps by the silence, so a jitter buffer does not squeeze the pause out. The
   * pause is read from the grid, not from when this process got round to sending: a late timer is no pause.
   * Only the first packet carries the marker bit: FreeSWITCH (switch_rtp.c, rtp_common_read) takes a marked
   * packet as a new talkspurt whose older audio is stale and empties its socket, dropping the marked packet too
   * when the timestamp moved less than 3 frames. Our frames are paced and never stale: marking pauses lost
   * audio whenever a timer ran late or the peer's frame came a tick late.
   */
  send(frame: Buffer, at: number): void {
    if (this.#closed || !this.#remote) return;
    const first = this.#lastAt === null;
    const gapFrames = first ? 0 : Math.round((at - this.#lastAt!) / AUDIO_FRAME_MS) - 1;
    if (gapFrames > 0) this.#timestamp = (this.#timestamp + gapFrames * AUDIO_FRAME_BYTES) >>> 0;
    this.#lastAt = at;
    const packet = encodeRtp({ payloadType: PT_PCMU, marker: first, sequence: this.#seq, timestamp: this.#timestamp, ssrc: this.#ssrc, payload: frame });
    this.#seq = (this.#seq + 1) & 0xffff;
    this.#timestamp = (this.#timestamp + frame.length) >>> 0;
    this.stats.sent++;
    this.#socket.send(packet, this.#remote.port, this.#remote.address);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#socket.close();
  }

  #receive(msg: Buffer): void {
    const packet = decodeRtp(msg);
    // Only audio: RFC 2833 keys reach the control plane as the leg's DTMF events instead.
    if (!packet || packet.payloadType !== PT_PCMU) return;
    this.stats.received++;
    if (this.#expected === null) this.#expected = packet.sequence;
    const ahead = seqDelta(packet.sequence, this.#expected);
    if (ahead < 0) { this.stats.late++; return; }
    this.#held.set(packet.sequence, Buffer.from(packet.payload));
    this.#drain();
    // Waited long enough for a missing packet: skip it.
    while (this.#held.size > REORDER_PACKETS) {
      this.stats.lost++;
      this.#expected = (this.#expected + 1) & 0xffff;
      this.#drain();
    }
  }

  #drain(): void {
    for (let next = this.#held.get(this.#expected!); next; next = this.#held.get(this.#expected!)) {
      this.#held.delete(this.#expected!);
      this.#expected = (this.#expected! + 1) & 0xffff;
      this.#emit(next);
    }
  }

  /** FreeSWITCH sends 20 ms packets for ptime 20, but any size is re-cut into whole frames. */
  #emit(payload: Buffer): void {
    const data = this.#pending.length > 0 ? Buffer.concat([this.#pending, payload]) : payload;
    let at = 0;
    for (; at + AUDIO_FRAME_BYTES <= data.length; at += AUDIO_FRAME_BYTES) this.onFrame(Buffer.from(data.subarray(at, at + AUDIO_FRAME_BYTES)));
    this.#pending = Buffer.from(data.subarray(at));
  }
}

/** A PCMU-only offer (ptime 20) naming the gateway's socket, for FreeSWITCH to answer. */
export function gatewayOffer(address: string, port: number, direction: 'sendrecv' | 'recvonly'): string {
  const id = randomInt(1, 2 ** 31);
  return [
    'v=0', `o=ringbase ${id} ${id} IN IP4 ${address}`, 's=ringbase-stream', `c=IN IP4 ${address}`, 't=0 0',
    `m=audio ${port} RTP/AVP ${PT_PCMU}`, 'a=rtpmap:0 PCMU/8000', 'a=ptime:20', `a=${direction}`, '',
  ].join('\r\n');
}

/** FreeSWITCH's RTP address from its answer: the audio m= port and its c= line (media level, else session level). */
export function answerAddress(sdp: string): RtpAddress | null {
  const [session = '', ...media] = sdp.split(/\r?\n(?=m=)/);
  const audio = media.find((section) => section.startsWith('m=audio'));
  const port = audio && /^m=audio (\d+) /.exec(audio)?.[1];
  const address = audio && (/^c=IN IP4 (\S+)/m.exec(audio)?.[1] ?? /^c=IN IP4 (\S+)/m.exec(session)?.[1]);
  return port && address ? { address, port: Number(port) } : null;
}

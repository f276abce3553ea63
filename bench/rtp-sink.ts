// One UDP socket that every benchmark leg sends its RTP to: per stream (SSRC) it counts packets and tracks sequence
// numbers, so the loss in a window is exact (missing sequence numbers / expected), whatever the packet time.
import { createSocket, type Socket } from 'node:dgram';

interface Stream { received: number; highest: number; lastAt: number; mark: { received: number; highest: number } | null }

export class RtpSink {
  readonly #streams = new Map<number, Stream>();
  private constructor(readonly socket: Socket) {
    socket.on('message', (msg) => {
      if (msg.length < 12 || (msg[0]! & 0xc0) !== 0x80) return;
      const ssrc = msg.readUInt32BE(8);
      const seq = msg.readUInt16BE(2);
      const s = this.#streams.get(ssrc) ?? { received: 0, highest: seq - 1, lastAt: 0, mark: null };
      // Extended sequence number: a jump back of more than half the space is a wrap, not a reorder.
      let ext = (s.highest & ~0xffff) | seq;
      if (ext < s.highest - 0x8000) ext += 0x10000;
      s.highest = Math.max(s.highest, ext);
      s.received++;
      s.lastAt = Date.now();
      this.#streams.set(ssrc, s);
    });
  }

  static async open(): Promise<RtpSink> {
    const socket = createSocket('udp4');
    await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
    return new RtpSink(socket);
  }

  get port(): number { return this.socket.address().port; }

  /** Streams that sent a packet in the last second. */
  active(): number {
    const since = Date.now() - 1_000;
    return [...this.#streams.values()].filter((s) => s.lastAt >= since).length;
  }

  /** Starts a measuring window on every active stream. */
  mark(): void {
    for (const s of this.#streams.values()) s.mark = { received: s.received, highest: s.highest };
  }

  /** Loss since mark() over the marked streams: (expected − received) / expected, and the packets counted. */
  loss(): { loss: number; packets: number; streams: number } {
    let expected = 0;
    let received = 0;
    let streams = 0;
    for (const s of this.#streams.values()) {
      if (!s.mark) continue;
      streams++;
      expected += s.highest - s.mark.highest;
      received += s.received - s.mark.received;
    }
    return { loss: expected > 0 ? Math.max(0, expected - received) / expected : 1, packets: received, streams };
  }

  /** Forgets every stream (between steps). */
  reset(): void { this.#streams.clear(); }

  close(): void { this.socket.close(); }
}

// RTP (RFC 3550) fixed header: just what a G.711 stream between the control plane and the media server needs
// (no CSRC list written, header extensions and padding skipped on read).
export interface RtpPacket {
  payloadType: number;
  marker: boolean;
  sequence: number;
  timestamp: number;
  ssrc: number;
  payload: Buffer;
}

export const RTP_HEADER_BYTES = 12;
export const PT_PCMU = 0;

export function encodeRtp(p: RtpPacket): Buffer {
  const out = Buffer.alloc(RTP_HEADER_BYTES + p.payload.length);
  out[0] = 0x80; // version 2
  out[1] = (p.marker ? 0x80 : 0) | (p.payloadType & 0x7f);
  out.writeUInt16BE(p.sequence & 0xffff, 2);
  out.writeUInt32BE(p.timestamp >>> 0, 4);
  out.writeUInt32BE(p.ssrc >>> 0, 8);
  p.payload.copy(out, RTP_HEADER_BYTES);
  return out;
}

/** null for anything that is not a well-formed version 2 packet (RTCP on the same port, stray datagrams). */
export function decodeRtp(buf: Buffer): RtpPacket | null {
  if (buf.length < RTP_HEADER_BYTES || buf[0]! >> 6 !== 2) return null;
  const payloadType = buf[1]! & 0x7f;
  // RTCP packet types 200-204 land at 72-76 once the marker bit is taken out.
  if (payloadType >= 72 && payloadType <= 76) return null;
  let offset = RTP_HEADER_BYTES + (buf[0]! & 0x0f) * 4;
  if (buf[0]! & 0x10) {
    if (buf.length < offset + 4) return null;
    offset += 4 + buf.readUInt16BE(offset + 2) * 4;
  }
  let end = buf.length;
  if (buf[0]! & 0x20) end -= buf[buf.length - 1]!;
  if (offset > end) return null;
  return {
    payloadType, marker: (buf[1]! & 0x80) !== 0, sequence: buf.readUInt16BE(2), timestamp: buf.readUInt32BE(4), ssrc: buf.readUInt32BE(8),
    payload: buf.subarray(offset, end),
  };
}

/** Signed distance from sequence number b to a, across the 16-bit wrap. */
export function seqDelta(a: number, b: number): number {
  return ((a - b + 0x8000) & 0xffff) - 0x8000;
}

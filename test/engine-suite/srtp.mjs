// SRTP (RFC 3711) with the AES_CM_128_HMAC_SHA1_80 suite, keyed by SDES (RFC 4568 a=crypto): enough of it for a
// test's far end to hear FreeSWITCH's encrypted audio and to send its own encrypted, with node:crypto only. AES-128
// in counter mode for the payload, HMAC-SHA1 over the packet and its rollover counter (the first 80 bits) for the
// tag, session keys derived from the master key and salt with key_derivation_rate 0. No MKI, no SRTCP. Plain
// JavaScript, so the relay's thread (srtp-relay-worker.mjs) needs no TypeScript loader.
import { createCipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The suite's master key and salt lengths, and its tag length (HMAC-SHA1 truncated to 80 bits). */
export const MASTER_KEY_BYTES = 16;
export const MASTER_SALT_BYTES = 14;
const TAG_BYTES = 10;

/** `length` bytes of AES-128 counter-mode keystream from the 16-byte counter block `iv`. */
function keystream(key, iv, length) {
  return createCipheriv('aes-128-ctr', key, iv).update(Buffer.alloc(length));
}

/**
 * A session key (RFC 3711 §4.3.1, key_derivation_rate 0): the keystream of the master key from the master salt
 * XOR the label (the key id's first byte, at byte 7 of the 14), times 2^16.
 */
export function deriveKey(masterKey, masterSalt, label, length) {
  const x = Buffer.alloc(16);
  masterSalt.copy(x, 0);
  x[7] ^= label;
  return keystream(masterKey, x, length);
}

/** A fresh master key and salt, as an a=crypto inline: value holds them (base64 of the 30 bytes). */
export function newInlineKey() {
  return randomBytes(MASTER_KEY_BYTES + MASTER_SALT_BYTES).toString('base64');
}

/** Bytes of an RTP packet's header: fixed part, CSRCs, and the extension when the X bit is set. */
function headerLength(pkt) {
  let n = 12 + (pkt[0] & 0x0f) * 4;
  if (pkt[0] & 0x10) n += 4 + pkt.readUInt16BE(n + 2) * 4;
  return n;
}

/** One direction of one SRTP stream: the session keys of one master key, and the rollover counter. */
export class SrtpStream {
  /** `inline`: the a=crypto inline key (base64 of master key and salt). */
  constructor(inline) {
    const master = Buffer.from(inline, 'base64');
    if (master.length !== MASTER_KEY_BYTES + MASTER_SALT_BYTES) throw new Error(`an AES_CM_128 inline key has 30 bytes, not ${master.length}`);
    const key = master.subarray(0, MASTER_KEY_BYTES);
    const salt = master.subarray(MASTER_KEY_BYTES);
    this.encryptionKey = deriveKey(key, salt, 0, 16);
    this.authKey = deriveKey(key, salt, 1, 20);
    this.saltKey = deriveKey(key, salt, 2, 14);
    /** Rollover counter, and the highest sequence number seen with it (null before the first packet). */
    this.roc = 0;
    this.lastSeq = null;
  }

  /** The counter block for a packet: session salt · 2^16, XOR SSRC · 2^64, XOR its index (ROC ‖ SEQ) · 2^16. */
  #iv(ssrc, roc, seq) {
    const iv = Buffer.alloc(16);
    this.saltKey.copy(iv, 0);
    iv.writeUInt32BE((iv.readUInt32BE(4) ^ ssrc) >>> 0, 4);
    iv.writeUInt32BE((iv.readUInt32BE(8) ^ roc) >>> 0, 8);
    iv.writeUInt16BE(iv.readUInt16BE(12) ^ seq, 12);
    return iv;
  }

  #tag(authenticated, roc) {
    const r = Buffer.alloc(4);
    r.writeUInt32BE(roc >>> 0);
    return createHmac('sha1', this.authKey).update(authenticated).update(r).digest().subarray(0, TAG_BYTES);
  }

  #crypt(pkt, roc) {
    const head = headerLength(pkt);
    const iv = this.#iv(pkt.readUInt32BE(8), roc, pkt.readUInt16BE(2));
    const payload = pkt.subarray(head);
    const ks = keystream(this.encryptionKey, iv, payload.length);
    const out = Buffer.from(pkt);
    for (let i = 0; i < payload.length; i++) out[head + i] = payload[i] ^ ks[i];
    return out;
  }

  /** An RTP packet this side sends, encrypted and tagged; the rollover counter follows the sequence numbers. */
  protect(rtp) {
    const seq = rtp.readUInt16BE(2);
    if (this.lastSeq !== null && seq < this.lastSeq && this.lastSeq - seq > 0x8000) this.roc = (this.roc + 1) >>> 0;
    this.lastSeq = seq;
    const encrypted = this.#crypt(rtp, this.roc);
    return Buffer.concat([encrypted, this.#tag(encrypted, this.roc)]);
  }

  /** An SRTP packet received: the RTP packet, or null when its tag does not check (not this key, or tampered). */
  unprotect(srtp) {
    if (srtp.length < 12 + TAG_BYTES) return null;
    const body = srtp.subarray(0, srtp.length - TAG_BYTES);
    if (headerLength(body) > body.length) return null;
    const seq = body.readUInt16BE(2);
    // The packet's rollover counter as RFC 3711 Appendix A guesses it from the highest sequence number so far.
    let v = this.roc;
    if (this.lastSeq !== null) {
      if (this.lastSeq < 0x8000) { if (seq - this.lastSeq > 0x8000) v = this.roc - 1; } else if (this.lastSeq - 0x8000 > seq) v = this.roc + 1;
    }
    if (v < 0) return null;
    if (!timingSafeEqual(this.#tag(body, v), srtp.subarray(srtp.length - TAG_BYTES))) return null;
    if (this.lastSeq === null || v > this.roc || (v === this.roc && seq > this.lastSeq)) {
      this.roc = v >>> 0;
      this.lastSeq = seq;
    }
    return this.#crypt(body, v);
  }
}

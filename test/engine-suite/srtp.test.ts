// The test far end's SRTP (srtp.mjs) against RFC 3711's own numbers: the session keys derived from its Appendix B.3
// master key and salt, and the AES-CM keystream of Appendix B.2; then packets both ways, a wrong key refused, and
// the rollover counter across a sequence-number wrap.
import t from 'tap';
import { createCipheriv } from 'node:crypto';
import { deriveKey, newInlineKey, SrtpStream } from './srtp.mjs';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

t.test('session keys: RFC 3711 Appendix B.3', async (t) => {
  const key = hex('E1F97A0D3E018BE0D64FA32C06DE4139');
  const salt = hex('0EC675AD498AFEEBB6960B3AABE6');
  t.equal(deriveKey(key, salt, 0, 16).toString('hex').toUpperCase(), 'C61E7A93744F39EE10734AFE3FF7A087', 'cipher key');
  t.equal(deriveKey(key, salt, 2, 14).toString('hex').toUpperCase(), '30CBBC08863D8C85D49DB34A9AE1', 'cipher salt');
  t.equal(deriveKey(key, salt, 1, 20).toString('hex').toUpperCase(), 'CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4', 'auth key (first 160 bits)');
});

t.test('AES-CM keystream: RFC 3711 Appendix B.2 (what the counter block feeds)', async (t) => {
  const ks = createCipheriv('aes-128-ctr', hex('2B7E151628AED2A6ABF7158809CF4F3C'), hex('F0F1F2F3F4F5F6F7F8F9FAFBFCFD0000')).update(Buffer.alloc(48));
  t.equal(ks.toString('hex').toUpperCase(), 'E03EAD0935C95E80E166B16DD92B4EB4D23513162B02D0F72A43A2FE4A5F97AB41E95B3BB0A2E8DD477901E4FCA894C0');
});

const rtp = (seq: number, payload: Buffer) => {
  const h = Buffer.alloc(12);
  h[0] = 0x80;
  h[1] = 8;
  h.writeUInt16BE(seq, 2);
  h.writeUInt32BE(seq * 160, 4);
  h.writeUInt32BE(0xdeadbeef, 8);
  return Buffer.concat([h, payload]);
};

t.test('a packet protected with a key is read back with it, and refused with another', async (t) => {
  const inline = newInlineKey();
  const [sender, receiver, stranger] = [new SrtpStream(inline), new SrtpStream(inline), new SrtpStream(newInlineKey())];
  const plain = rtp(7, Buffer.alloc(160, 0x55));
  const srtp = sender.protect(plain);
  t.equal(srtp.length, plain.length + 10, '80-bit tag appended');
  t.notSame(srtp.subarray(12, 172), plain.subarray(12), 'payload encrypted');
  t.same(srtp.subarray(0, 12), plain.subarray(0, 12), 'header in the clear');
  t.equal(stranger.unprotect(srtp), null, 'another key: the tag does not check');
  t.same(receiver.unprotect(srtp), plain, 'the same key: the packet as sent');
  const tampered = Buffer.from(srtp);
  tampered[20]! ^= 1;
  t.equal(new SrtpStream(inline).unprotect(tampered), null, 'one bit changed: refused');
});

t.test('the rollover counter follows a sequence-number wrap', async (t) => {
  const inline = newInlineKey();
  const [sender, receiver] = [new SrtpStream(inline), new SrtpStream(inline)];
  for (const seq of [65533, 65534, 65535, 0, 1, 2]) {
    const plain = rtp(seq, Buffer.from([seq & 0xff, 1, 2, 3]));
    t.same(receiver.unprotect(sender.protect(plain)), plain, `seq ${seq}`);
  }
  t.equal(sender.roc, 1);
  t.equal(receiver.roc, 1);
});

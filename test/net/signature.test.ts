import t from 'tap';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { sign, verify, parseSignatureHeader, SIGNATURE_HEADER } from '../../src/net/signature.js';

const secret = 'whsec_test';
const now = 1_767_225_600; // 2026-01-01T00:00:00Z

t.test('sign produces t=<unix>,v1=<hmac of "t.body">', async (t) => {
  const expected = createHmac('sha256', secret).update(`${now}.{"a":1}`).digest('hex');
  t.equal(sign(secret, '{"a":1}', now), `t=${now},v1=${expected}`);
  t.equal(sign(secret, Buffer.from('{"a":1}'), now), sign(secret, '{"a":1}', now), 'string and Buffer bodies agree');
  t.equal(SIGNATURE_HEADER, 'X-Service-Signature');
});

t.test('sign rejects non-integer timestamps', async (t) => {
  for (const bad of [1.5, -1, Number.NaN, Infinity]) t.throws(() => sign(secret, '', bad), RangeError);
});

t.test('verify accepts fresh signatures and reports each failure reason', async (t) => {
  const body = '{"event_type":"hangup"}';
  const header = sign(secret, body, now);
  t.same(verify(secret, body, header, now), { ok: true });
  t.same(verify(secret, body, header, now + 300), { ok: true }, 'edge of the window');
  t.same(verify(secret, body, header, now + 301), { ok: false, reason: 'stale' });
  t.same(verify(secret, body, header, now - 301), { ok: false, reason: 'stale' }, 'future timestamps too');
  t.same(verify(secret, body, header, now + 1000, 3600), { ok: true }, 'custom tolerance');
  t.same(verify('other', body, header, now), { ok: false, reason: 'mismatch' });
  t.same(verify(secret, `${body} `, header, now), { ok: false, reason: 'mismatch' });
  t.same(verify(secret, body, header.replace(`t=${now}`, `t=${now + 1}`), now), { ok: false, reason: 'mismatch' });
  t.same(verify(secret, body, 'garbage', now), { ok: false, reason: 'malformed' });
  t.same(verify(secret, body, undefined, now), { ok: false, reason: 'malformed' });
});

t.test('verify handles odd v1 values without throwing', async (t) => {
  for (const v1 of ['abc', 'zz', 'ab'.repeat(33), 'AB'.repeat(32)]) {
    t.same(verify(secret, 'x', `t=${now},v1=${v1}`, now), { ok: false, reason: 'mismatch' }, v1);
  }
});

t.test('rotation: any matching v1 among several is accepted', async (t) => {
  const good = sign(secret, 'body', now).split('v1=')[1];
  t.same(verify(secret, 'body', `t=${now}, v1=${'0'.repeat(64)}, v1=${good}`, now), { ok: true });
  t.same(verify(secret, 'body', `t=${now},v1=${good?.toUpperCase()}`, now), { ok: true }, 'hex case is ignored');
});

t.test('parseSignatureHeader', async (t) => {
  t.same(parseSignatureHeader('t=1,v1=ab'), { t: 1, v1: ['ab'] });
  t.same(parseSignatureHeader(' t = 12 , v1 = aa , v0=zz, v1=bb, x'), { t: 12, v1: ['aa', 'bb'] });
  t.same(parseSignatureHeader('v1=aa,t=5'), { t: 5, v1: ['aa'] }, 'order does not matter');
  t.same(parseSignatureHeader('t=5,t=5,v1=aa'), { t: 5, v1: ['aa'] });
  for (const bad of ['', 't=1', 'v1=aa', 't=abc,v1=aa', 't=-1,v1=aa', 't=1.5,v1=aa', 't=1,t=2,v1=aa', 't=1,v1=', null, 42]) {
    t.equal(parseSignatureHeader(bad), null, String(bad));
  }
});

const secrets = fc.oneof(fc.string({ minLength: 1 }), fc.uint8Array({ minLength: 1, maxLength: 64 }).map((a) => Buffer.from(a)));
const bodies = fc.oneof(fc.string(), fc.uint8Array({ maxLength: 512 }).map((a) => Buffer.from(a)));
const times = fc.integer({ min: 0, max: 4_000_000_000 });
const runs = { numRuns: 500 };

t.test('property: verify(sign(x)) holds', async (t) => {
  fc.assert(fc.property(secrets, bodies, times, (s, b, ts) => verify(s, b, sign(s, b, ts), ts).ok), runs);
  t.pass();
});

t.test('property: changing any one byte of the body fails', async (t) => {
  fc.assert(
    fc.property(secrets, fc.uint8Array({ minLength: 1, maxLength: 256 }), fc.nat(), fc.integer({ min: 1, max: 255 }), times, (s, raw, at, delta, ts) => {
      const body = Buffer.from(raw);
      const header = sign(s, body, ts);
      const i = at % body.length;
      body[i] = (body[i]! + delta) % 256;
      return verify(s, body, header, ts).ok === false;
    }),
    runs,
  );
  t.pass();
});

t.test('property: changing any one character of the signature fails', async (t) => {
  fc.assert(
    fc.property(secrets, bodies, times, fc.nat(63), fc.integer({ min: 1, max: 15 }), (s, b, ts, at, delta) => {
      const header = sign(s, b, ts);
      const hexStart = header.indexOf('v1=') + 3;
      const hex = header.slice(hexStart).split('');
      hex[at] = ((parseInt(hex[at]!, 16) + delta) % 16).toString(16);
      return verify(s, b, header.slice(0, hexStart) + hex.join(''), ts).ok === false;
    }),
    runs,
  );
  t.pass();
});

t.test('property: parseSignatureHeader never throws on arbitrary input', async (t) => {
  const headerish = fc.array(fc.oneof(fc.constantFrom('t=', 'v1=', ',', ' ', '='), fc.string()), { maxLength: 12 }).map((p) => p.join(''));
  fc.assert(fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), headerish, fc.anything()), (h) => {
    parseSignatureHeader(h);
    verify('s', 'b', h, now);
  }), runs);
  t.pass();
});

t.test('property: timestamps outside the tolerance are stale', async (t) => {
  fc.assert(
    fc.property(secrets, bodies, times, fc.integer({ min: 301, max: 1_000_000 }), fc.boolean(), (s, b, ts, skew, ahead) => {
      const result = verify(s, b, sign(s, b, ts), ahead ? ts + skew : ts - skew);
      return !result.ok && result.reason === 'stale';
    }),
    runs,
  );
  t.pass();
});

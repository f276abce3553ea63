import t from 'tap';
import { randomBytes } from 'node:crypto';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { constantTimeEqual, newSid, randomLowerAlnum } from '../../src/crypto/tokens.js';

t.test('seal and open', async (t) => {
  const box = createSecretBox(randomBytes(32));
  const sealed = box.seal('hunter2');
  t.notMatch(sealed, /hunter2/);
  t.not(box.seal('hunter2'), sealed, 'a fresh IV each time');
  t.equal(box.open(sealed), 'hunter2');
  t.equal(createSecretBox(randomBytes(32)).open(sealed), null, 'another key cannot open it');
  const parts = sealed.split('.');
  parts[3] = Buffer.from('tampered').toString('base64url');
  t.equal(box.open(parts.join('.')), null, 'tampering is detected');
  for (const junk of [null, '', 'v1', 'v2.a.b.c', 'v1.!!.??.**']) t.equal(box.open(junk), null, `junk ${String(junk)}`);
  t.throws(() => createSecretBox(randomBytes(16)));
});

t.test('tokens', async (t) => {
  t.match(randomLowerAlnum(40), /^[a-z0-9]{40}$/);
  t.match(newSid('CA'), /^CA[0-9a-f]{32}$/);
  t.ok(constantTimeEqual('abc', 'abc'));
  t.notOk(constantTimeEqual('abc', 'abd'));
  t.notOk(constantTimeEqual('abc', 'abcd'));
});

t.test('values opened again come from memory, and only for the exact sealed form', async (t) => {
  const key = randomBytes(32);
  const box = createSecretBox(key);
  const sealed = box.seal('sip-password-1');
  t.equal(box.open(sealed), 'sip-password-1');
  t.equal(box.open(sealed), 'sip-password-1', 'again');
  const parts = sealed.split('.');
  parts[2] = Buffer.from('x'.repeat(16)).toString('base64url');
  t.equal(box.open(parts.join('.')), null, 'a forged tag on the same ciphertext is still refused');
  t.equal(createSecretBox(randomBytes(32)).open(sealed), null, 'another key still cannot open it');
  const many = Array.from({ length: 1_100 }, (_, i) => box.seal(`secret ${i}`));
  t.same(many.map((s) => box.open(s)), many.map((_, i) => `secret ${i}`), 'past what is kept, values are decrypted again');
  t.same(many.map((s) => box.open(s)), many.map((_, i) => `secret ${i}`));
});

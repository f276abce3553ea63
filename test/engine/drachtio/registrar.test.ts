// The registrar without SIP: handle() driven by minimal request/response fakes carrying real digest answers,
// against the real SQLite store, so what a restart keeps is what a new Registrar on the same file sees.
import t from 'tap';
import pino from 'pino';
import { createHash } from 'node:crypto';
import type Srf from 'drachtio-srf';
import { FakeClock } from '../../../src/clock.js';
import { openStore } from '../../../src/repositories.js';
import { CredentialStore } from '../../../src/engine/drachtio/credentials.js';
import { DigestAuthority } from '../../../src/engine/drachtio/digest.js';
import { Registrar } from '../../../src/engine/drachtio/registrar.js';
import { tempDir } from '../../helpers/harness.js';

const REALM = 'sip.test.example';
const TRUNK = { endpointName: 'tr_alpha', password: 'secret-pw', transport: 'udp' as const };
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

async function setup(t: { teardown(fn: () => unknown): void }, clock: FakeClock, dir = tempDir(t)) {
  const store = await openStore(dir, clock);
  t.teardown(() => store.close());
  const credentials = new CredentialStore(new DigestAuthority(REALM, () => clock.now()));
  credentials.set(TRUNK);
  return { dir, store, credentials, registrar: new Registrar(credentials, store.registrations, pino({ level: 'silent' }), () => clock.now()) };
}

/** A REGISTER as drachtio-srf hands it over; `password` answers a fresh challenge, `contact` null queries. */
function register(credentials: CredentialStore, opts: { contact: string | null; password?: string; expires?: number }) {
  const headers: Record<string, string> = {};
  if (opts.expires !== undefined) headers.expires = String(opts.expires);
  if (opts.contact !== null) headers.contact = opts.contact;
  if (opts.password !== undefined) {
    const nonce = /nonce="([^"]+)"/.exec(credentials.digest.challenge())![1]!;
    const uri = `sip:${REALM}`;
    const ha1 = md5(`${TRUNK.endpointName}:${REALM}:${opts.password}`);
    const response = md5(`${ha1}:${nonce}:00000001:c0ffee:auth:${md5(`REGISTER:${uri}`)}`);
    headers.authorization = `Digest username="${TRUNK.endpointName}", realm="${REALM}", nonce="${nonce}", uri="${uri}", response="${response}", qop=auth, nc=00000001, cnonce="c0ffee"`;
  }
  const req = {
    method: 'REGISTER', protocol: 'UDP', source_address: '192.0.2.7', source_port: '5062',
    has: (name: string) => name.toLowerCase() in headers,
    get: (name: string) => headers[name.toLowerCase()] ?? '',
    // drachtio-srf parses Contact into [{uri, params}], or '*' for the wildcard.
    getParsedHeader: () => headers.contact === '*' ? '*' : headers.contact!.split(',').map((c) => {
      const [uri, ...params] = c.trim().replace(/^<|>(?=;|$)/g, '').split(';');
      return { uri, params: Object.fromEntries(params.map((p) => p.split('='))) };
    }),
  };
  const sent: Array<{ status: number; headers?: Record<string, string> }> = [];
  const res = { send: (status: number, o?: { headers?: Record<string, string> }) => sent.push({ status, ...o }) };
  return { req: req as unknown as Srf.SrfRequest, res: res as unknown as Srf.SrfResponse, sent };
}

const handle = async (r: Registrar, c: CredentialStore, opts: Parameters<typeof register>[1]) => {
  const { req, res, sent } = register(c, opts);
  await r.handle(req, res);
  return sent;
};

t.test('digest REGISTER is stored with its granted expiry and survives a restart until it expires', async (t) => {
  const clock = new FakeClock();
  const { dir, store, credentials, registrar } = await setup(t, clock);
  const challenged = await handle(registrar, credentials, { contact: '<sip:alpha@10.0.0.1:5060>' });
  t.equal(challenged[0]?.status, 401);
  t.match(challenged[0]?.headers?.['WWW-Authenticate'], /^Digest realm="sip\.test\.example"/);
  t.equal((await handle(registrar, credentials, { contact: '<sip:alpha@10.0.0.1:5060>', password: 'wrong' }))[0]?.status, 403);
  t.same(await registrar.lookup(TRUNK.endpointName), [], 'nothing stored before a valid answer');

  const ok = await handle(registrar, credentials, { contact: '<sip:alpha@10.0.0.1:5060>;expires=120', password: TRUNK.password });
  t.same(ok, [{ status: 200, headers: { Contact: '<sip:alpha@10.0.0.1:5060>;expires=120' } }]);
  const stored = {
    endpointName: TRUNK.endpointName, contact: 'sip:alpha@10.0.0.1:5060', proxy: 'sip:192.0.2.7:5062;transport=udp', transport: 'udp',
    expiresAt: clock.now() + 120_000,
  };
  t.same(await registrar.lookup(TRUNK.endpointName), [stored]);

  store.close();
  const restarted = await setup(t, clock, dir);
  t.same(await restarted.registrar.lookup(TRUNK.endpointName), [stored], 'a new registrar on the same file finds it');
  await clock.advance(120_000);
  t.same(await restarted.registrar.lookup(TRUNK.endpointName), [], 'expired');
  await handle(restarted.registrar, restarted.credentials, { contact: '<sip:alpha@10.0.0.2:5060>', expires: 300, password: TRUNK.password });
  t.same(await restarted.store.sql.all('SELECT contact FROM sip_registrations'), [{ contact: 'sip:alpha@10.0.0.2:5060' }],
    'the next REGISTER pruned the expired row');
});

t.test('expiry is clamped; expires=0, Contact: * and forget remove bindings', async (t) => {
  const clock = new FakeClock();
  const { credentials, registrar } = await setup(t, clock);
  const reg = (contact: string, expires?: number) => handle(registrar, credentials, { contact, password: TRUNK.password, ...(expires === undefined ? {} : { expires }) });
  t.equal((await reg('<sip:a@10.0.0.1>', 10))[0]?.headers?.Contact, '<sip:a@10.0.0.1>;expires=60', 'at least 60 s');
  t.equal((await reg('<sip:b@10.0.0.2>', 99_999))[0]?.headers?.Contact, '<sip:b@10.0.0.2>;expires=3600', 'at most an hour');
  await clock.advance(1_000);
  t.equal((await reg('<sip:c@10.0.0.3>'))[0]?.headers?.Contact, '<sip:c@10.0.0.3>;expires=3600', 'an hour when none is asked');
  t.same((await registrar.lookup(TRUNK.endpointName)).map((r) => r.contact), ['sip:c@10.0.0.3', 'sip:b@10.0.0.2', 'sip:a@10.0.0.1'], 'newest expiry first');
  t.same(await reg('<sip:b@10.0.0.2>;expires=0'), [{ status: 200 }], 'expires=0 grants nothing');
  t.same((await registrar.lookup(TRUNK.endpointName)).map((r) => r.contact), ['sip:c@10.0.0.3', 'sip:a@10.0.0.1']);
  t.same(await reg('*', 0), [{ status: 200 }]);
  t.same(await registrar.lookup(TRUNK.endpointName), [], 'Contact: * removes all');
  await reg('<sip:a@10.0.0.1>', 600);
  await registrar.forget(TRUNK.endpointName);
  t.same(await registrar.lookup(TRUNK.endpointName), [], 'forget (revoke, suspend) removes all');
});

t.test('a REGISTER that cannot be stored is answered 500, not accepted', async (t) => {
  const { store, credentials, registrar } = await setup(t, new FakeClock());
  store.close();
  t.same(await handle(registrar, credentials, { contact: '<sip:a@10.0.0.1>', password: TRUNK.password }), [{ status: 500 }]);
});

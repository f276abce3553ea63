// `ringbase carrier …`: add, update, show, list and remove carriers with their sources, gateways, routes, credentials,
// registration and number rules (docs/carriers.md); every bad option refused with its name, the password never shown.
import t from 'tap';
import { operatorCli } from '../helpers/harness.js';
import { openStore } from '../../src/repositories.js';
import { systemClock } from '../../src/clock.js';

t.test('a carrier with everything, shown as documented, changed, listed and removed', async (t) => {
  const { rb, dataDir, database } = await operatorCli(t);
  const added = await rb('--json', 'carrier', 'add', '--name', 'acme',
    '--source', '203.0.113.0/24', '--source', '[2001:db8::/32]:5060',
    '--gateway', 'sip1.acme.example;priority=0;weight=2', '--gateway', 'sip2.acme.example:5070;transport=tcp;priority=1',
    '--prefix', '+44', '--prefix', '+33;priority=2',
    '--username', 'acct-7', '--password', 'correct horse', '--realm', 'acme.example', '--register',
    '--number-format', 'national', '--country-code', '44', '--national-prefix', '0', '--international-prefix', '00', '--tech-prefix', '1234#',
    '--dtmf', 'info', '--codecs', 'pcma,PCMU');
  t.equal(added.code, 0, added.stderr);
  t.notMatch(added.stdout, 'correct horse', 'the password is never printed');
  t.same(JSON.parse(added.stdout), {
    id: 1, name: 'acme', created_at: JSON.parse(added.stdout).created_at,
    sources: [{ network: '203.0.113.0/24', port: null }, { network: '2001:db8::/32', port: 5060 }],
    gateways: [
      { host: 'sip1.acme.example', port: null, transport: 'udp', priority: 0, weight: 2 },
      { host: 'sip2.acme.example', port: 5070, transport: 'tcp', priority: 1, weight: 1 },
    ],
    routes: [{ prefix: '+44', priority: 0, weight: 1 }, { prefix: '+33', priority: 2, weight: 1 }],
    auth: { username: 'acct-7', realm: 'acme.example', password_set: true },
    registration: { host: 'sip1.acme.example', port: null, transport: 'udp', expires: 3600 },
    numbers: { format: 'national', country_code: '44', national_prefix: '0', international_prefix: '00', tech_prefix: '1234#' },
    dtmf: 'info', codecs: ['PCMA', 'PCMU'], srtp: 'off', options_ping_s: null,
  });

  const store = await openStore(dataDir, systemClock(), database);
  t.teardown(() => store.close());
  const sealed = (await store.sql.one<{ auth_password_sealed: string }>('SELECT auth_password_sealed FROM carriers'))!.auth_password_sealed;
  t.notMatch(sealed, 'correct horse', 'sealed at rest');

  const updated = await rb('--json', 'carrier', 'update', 'acme', '--gateway', '198.51.100.9;transport=tls', '--srtp', 'required', '--no-register', '--tech-prefix', '');
  t.equal(updated.code, 0, updated.stderr);
  const u = JSON.parse(updated.stdout);
  t.same(u.gateways, [{ host: '198.51.100.9', port: null, transport: 'tls', priority: 0, weight: 1 }], 'a list option replaces the list');
  t.same(u.routes.map((r: { prefix: string }) => r.prefix), ['+44', '+33'], 'lists not given stay');
  t.equal(u.srtp, 'required');
  t.equal(u.registration, null);
  t.equal(u.numbers.tech_prefix, null, 'an empty value clears a prefix');
  t.same(u.auth, { username: 'acct-7', realm: 'acme.example', password_set: true }, 'credentials kept when not given');
  t.equal((await store.sql.one<{ auth_password_sealed: string }>('SELECT auth_password_sealed FROM carriers'))!.auth_password_sealed, sealed, 'the password kept as it was');

  t.same(JSON.parse((await rb('--json', 'carrier', 'show', 'acme')).stdout), u);
  t.equal((await rb('carrier', 'add', '--name', 'pbx', '--address', '10.20.0.5:5080')).code, 0, 'the --address shorthand');
  const list = await rb('carrier', 'list');
  t.match(list.stdout, /^acme\t198\.51\.100\.9;tls\t\+44,\+33\tauth acct-7$/m);
  t.match(list.stdout, /^pbx\t10\.20\.0\.5:5080\t\*$/m);
  t.equal((await rb('--json', 'carrier', 'update', 'acme', '--no-auth')).code, 0);
  t.equal(JSON.parse((await rb('--json', 'carrier', 'show', 'acme')).stdout).auth, null, '--no-auth removes the credentials');
  t.equal((await rb('carrier', 'remove', 'acme')).code, 0);
  t.equal((await rb('carrier', 'show', 'acme')).code, 1);
  t.same(JSON.parse((await rb('--json', 'carrier', 'list')).stdout).map((c: { name: string }) => c.name), ['pbx']);
});

t.test('bad options are refused with their name, and nothing is stored', async (t) => {
  const { rb } = await operatorCli(t);
  const cases: Array<[string[], RegExp]> = [
    [['--gateway', 'a..example.com'], /--gateway host "a\.\.example\.com" has an empty label/],
    [['--gateway', '10.0.0.1;transport=ws'], /--gateway transport must be one of udp, tcp, tls/],
    [['--gateway', '10.0.0.1;priority=-1'], /--gateway priority must be a whole number/],
    [['--source', 'sip.example.com'], /--source must be an IP address or CIDR range/],
    [['--address', '10.0.0.1', '--prefix', '44x'], /--prefix must be digits/],
    [['--address', '10.0.0.1', '--number-format', 'national'], /number rules: .*country/],
    [['--address', '10.0.0.1', '--tech-prefix', 'abc'], /number rules: .*tech/],
    [['--address', '10.0.0.1', '--register'], /--register needs --username and --password/],
    [['--address', '10.0.0.1', '--username', 'u'], /--password is needed with --username/],
    [['--address', '10.0.0.1', '--srtp', 'required'], /--srtp offered or required needs every gateway on transport=tls/],
    [['--address', '10.0.0.1', '--codecs', 'G729'], /--codecs must be one of PCMU, PCMA, G722, OPUS/],
    [['--address', '10.0.0.1', '--dtmf', 'sms'], /--dtmf must be one of rfc2833, info, inband/],
    [['--address', '10.0.0.1', '--register', '--username', 'u', '--password', 'p', '--register-expires', '10'], /--register-expires must be at least 60/],
    [[], /a carrier needs --address, or a --source, a --gateway or --register/],
  ];
  for (const [args, why] of cases) {
    const r = await rb('carrier', 'add', '--name', 'x', ...args);
    t.equal(r.code, 1, args.join(' '));
    t.match(r.stderr, why, args.join(' '));
  }
  const named = await rb('carrier', 'add', '--name', 'bad\u202ename', '--address', '10.0.0.1');
  t.equal(named.code, 1, 'names follow the one name rule');
  t.equal((await rb('carrier', 'add', '--name', 'ok', '--address', '10.0.0.1')).code, 0);
  t.match((await rb('carrier', 'add', '--name', 'ok', '--address', '10.0.0.2')).stderr, /already exists/);
  t.match((await rb('carrier', 'update', 'nobody', '--dtmf', 'info')).stderr, /no carrier named "nobody"/);
  t.same(JSON.parse((await rb('--json', 'carrier', 'list')).stdout).map((c: { name: string }) => c.name), ['ok'], 'only the good one stored');
});

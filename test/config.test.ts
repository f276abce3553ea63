import t from 'tap';
import { readdirSync, statSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, loadMasterKey, ConfigError } from '../src/config.js';
import { tempDir } from './helpers/harness.js';
import { ROOT, run } from './helpers/spawn.js';

t.test('environment overrides config/default.json', async (t) => {
  const d = loadConfig({});
  t.equal(d.host, '127.0.0.1');
  t.equal(d.port, 8080);
  t.equal(d.engine.kind, 'sandbox', 'sandbox when no drachtio is configured');
  t.equal(d.turn.secret, null);
  const c = loadConfig({
    HOST: '0.0.0.0', PORT: '9000', RINGBASE_DATA_DIR: '/tmp/x', RINGBASE_SIP_HOST: 'sip.example.com', RINGBASE_SIP_WSS_PORT: '7443',
    RINGBASE_TURN_SECRET: 's', RINGBASE_TURN_TTL: '60', DRACHTIO_HOST: '127.0.0.1', RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1',
  });
  t.equal(c.host, '0.0.0.0');
  t.equal(c.port, 9000);
  t.equal(c.dataDir, '/tmp/x');
  t.equal(c.sip.host, 'sip.example.com');
  t.equal(c.sip.wssPort, 7443);
  t.equal(c.turn.ttlSeconds, 60);
  t.equal(c.engine.kind, 'drachtio', 'a configured drachtio host selects the real engine');
  t.equal(c.devAllowLocalTargets, true);
  t.equal(loadConfig({ DRACHTIO_HOST: 'x', RINGBASE_ENGINE: 'sandbox' }).engine.kind, 'sandbox', 'explicit choice wins');
});

t.test('bad configuration values are refused with a clear message', async (t) => {
  t.throws(() => loadConfig({ PORT: 'eighty' }), new ConfigError('PORT must be a whole number, got "eighty"'));
  t.throws(() => loadConfig({ RINGBASE_ENGINE: 'asterisk' }), ConfigError);
  t.throws(() => loadConfig({ RINGBASE_TLS_CERT: '/x.pem' }), /must be set together/);
  t.throws(() => loadConfig({ RINGBASE_HTTP_REQUEST_TIMEOUT_MS: '0' }), new ConfigError('RINGBASE_HTTP_REQUEST_TIMEOUT_MS must be at least 1, got "0"'),
    'a zero would switch the defence off');
  t.throws(() => loadConfig({ RINGBASE_HTTP_HEADERS_TIMEOUT_MS: '20000' }), /must not exceed RINGBASE_HTTP_REQUEST_TIMEOUT_MS/);
});

t.test('HTTP listener limits: defaults and overrides', async (t) => {
  t.same(loadConfig({}).http, { headersTimeoutMs: 10_000, requestTimeoutMs: 15_000, keepAliveTimeoutMs: 5_000, idleTimeoutMs: 60_000, maxConnectionsPerIp: 64 });
  t.same(loadConfig({
    RINGBASE_HTTP_HEADERS_TIMEOUT_MS: '2000', RINGBASE_HTTP_REQUEST_TIMEOUT_MS: '3000', RINGBASE_HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
    RINGBASE_HTTP_IDLE_TIMEOUT_MS: '4000', RINGBASE_HTTP_MAX_CONNECTIONS_PER_IP: '8',
  }).http, { headersTimeoutMs: 2_000, requestTimeoutMs: 3_000, keepAliveTimeoutMs: 1_000, idleTimeoutMs: 4_000, maxConnectionsPerIp: 8 });
});

t.test('API-key failure throttle: defaults, overrides, zero refused', async (t) => {
  t.same(loadConfig({}).authThrottle, { failLimit: 20, failWindowSeconds: 60 });
  t.same(loadConfig({ RINGBASE_AUTH_FAIL_LIMIT: '5', RINGBASE_AUTH_FAIL_WINDOW_S: '300' }).authThrottle, { failLimit: 5, failWindowSeconds: 300 });
  t.throws(() => loadConfig({ RINGBASE_AUTH_FAIL_LIMIT: '0' }), new ConfigError('RINGBASE_AUTH_FAIL_LIMIT must be at least 1, got "0"'));
});

t.test('master key: generated once with 0600, or from the environment, never malformed', async (t) => {
  const dir = tempDir(t);
  const k1 = loadMasterKey(dir, {});
  t.equal(k1.length, 32);
  t.equal(statSync(path.join(dir, 'master.key')).mode & 0o777, 0o600);
  t.same(loadMasterKey(dir, {}), k1, 'the same key on the next start');
  const hex = 'ab'.repeat(32);
  t.same(loadMasterKey(dir, { RINGBASE_MASTER_KEY: hex }), Buffer.from(hex, 'hex'), 'environment wins');
  const b64 = Buffer.alloc(32, 7).toString('base64');
  t.same(loadMasterKey(dir, { RINGBASE_MASTER_KEY: b64 }), Buffer.alloc(32, 7), 'base64 accepted');
  for (const bad of ['short', 'ab'.repeat(31), Buffer.alloc(31).toString('base64'), 'zz'.repeat(32)]) {
    t.throws(() => loadMasterKey(dir, { RINGBASE_MASTER_KEY: bad }), ConfigError, `refuses ${bad.slice(0, 12)}…`);
  }
  writeFileSync(path.join(dir, 'master.key'), 'garbage\n');
  t.throws(() => loadMasterKey(dir, {}), ConfigError, 'a corrupted key file stops the start');
  t.equal(readFileSync(path.join(dir, 'master.key'), 'utf8'), 'garbage\n', 'and is never overwritten');
});

t.test('several processes starting together on one data dir (a cluster sharing it) agree on the master key and the operator token', async (t) => {
  const dir = tempDir(t);
  const printed = await Promise.all(Array.from({ length: 4 }, () =>
    run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test', 'helpers', 'print-data-dir-secrets.ts'), dir], { timeoutMs: 60_000 })));
  t.same(printed.map((p) => p.code), [0, 0, 0, 0], printed.map((p) => p.stderr).join(''));
  t.equal(new Set(printed.map((p) => p.stdout)).size, 1, 'one key and one token for all');
  t.match(printed[0]!.stdout, /^[0-9a-f]{64} op_\S+\n$/);
  t.same(readdirSync(dir).sort(), ['master.key', 'operator.token'], 'no draft left behind');
  t.equal(statSync(path.join(dir, 'operator.token')).mode & 0o777, 0o600);
});

t.test('media servers: FREESWITCH_SERVERS lists several, else the single FREESWITCH_HOST/PORT/PASSWORD one', async (t) => {
  t.same(loadConfig({ FREESWITCH_HOST: 'fs1', FREESWITCH_PORT: '8022', FREESWITCH_PASSWORD: 'pw' }).engine.mediaServers, [{ host: 'fs1', port: 8022, password: 'pw' }]);
  t.same(loadConfig({ FREESWITCH_SERVERS: 'fs-a:8021:ClueCon, 10.0.0.5:8021:p:w:d,[::1]:8022:x' }).engine.mediaServers, [
    { host: 'fs-a', port: 8021, password: 'ClueCon' },
    { host: '10.0.0.5', port: 8021, password: 'p:w:d' },
    { host: '::1', port: 8022, password: 'x' },
  ], 'host:port:password each; the password keeps its colons; IPv6 in brackets');
  for (const bad of ['fs-a:8021', 'fs-a:0:pw', 'fs-a:70000:pw', 'fs a:8021:pw', 'fs-a:8021:secret,,fs-b:1:x']) {
    const err = t.throws(() => loadConfig({ FREESWITCH_SERVERS: bad }), ConfigError, bad) as unknown as Error;
    t.notMatch(err?.message ?? '', /secret|pw\b/, 'the message never repeats a password');
  }
  t.throws(() => loadConfig({ FREESWITCH_SERVERS: 'fs-a:8021:x,fs-a:8021:y' }), new ConfigError('FREESWITCH_SERVERS names fs-a:8021 twice'));
});

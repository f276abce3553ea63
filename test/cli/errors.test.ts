// The CLI's failures are one line each with a non-zero exit, never a stack trace.
import t, { type Test } from 'tap';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { operatorCli } from '../helpers/harness.js';
import { operatorToken } from '../../src/operator-token.js';
import { selfSignedPems } from '../../src/crypto/self-signed.js';
import { freePort } from '../helpers/server-process.js';

const oneLine = (t: Test, res: { code: number | null; stderr: string }, pattern: RegExp, what: string) => {
  t.equal(res.code, 1, `${what}: exit 1`);
  t.match(res.stderr, pattern, `${what}: ${res.stderr.trim()}`);
  t.equal(res.stderr.trim().split('\n').length, 1, `${what}: one line`);
  t.notMatch(res.stderr, /\n\s+at /, `${what}: no stack trace`);
};

t.test('missing files, bad JSON, an unreachable server, an untrusted certificate', async (t) => {
  const { dataDir, rb } = await operatorCli(t);
  oneLine(t, await rb('markup', 'check', 'no-such.xml'), /^ringbase: cannot read no-such\.xml: no such file$/m, 'markup check of a missing file');
  await rb('account', 'create', '--name', 'A');
  oneLine(t, await rb('number', 'add', '+14155550100', '--settings', '@no-such.json'), /cannot read no-such\.json: no such file/, 'settings from a missing file');
  oneLine(t, await rb('number', 'add', '+14155550100', '--settings', '{bad'), /--settings must be a JSON object/, 'settings that are not JSON');

  operatorToken(dataDir, true);
  const closed = await freePort();
  oneLine(t, await rb('simulate', 'inbound', '--to', '+14155550100', '--from', '+15557770001', '--url', `http://127.0.0.1:${closed}`),
    /cannot reach the server at http:\/\/127\.0\.0\.1:\d+: the server is not answering/, 'nothing listening');

  const pems = await selfSignedPems('127.0.0.1', 1);
  const tls = createServer({ cert: pems.cert, key: pems.key }, (_req, res) => res.end());
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => tls.close());
  const port = (tls.address() as AddressInfo).port;
  oneLine(t, await rb('simulate', 'inbound', '--to', '+14155550100', '--from', '+15557770001', '--url', `https://127.0.0.1:${port}`),
    /the server's TLS certificate is not trusted \(\w+\); for a self-signed development server/, 'a self-signed certificate');
});

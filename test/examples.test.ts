// examples/: every document lints clean, the IVR settings are accepted, and the webhook app answers a simulated
// call end to end, checking signatures with the account's signing secret (a wrong secret refuses the call).
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT, cleanEnv } from './helpers/spawn.js';
import { operatorCli } from './helpers/harness.js';
import { databaseEnv } from './helpers/backends.js';
import { freePort, startServerProcess } from './helpers/server-process.js';
import { openStore } from '../src/repositories.js';
import { systemClock } from '../src/clock.js';
import { loadMasterKey } from '../src/config.js';
import { createSecretBox } from '../src/crypto/secret-box.js';
import { SigningSecrets } from '../src/accounts/signing-secret.js';

const example = (name: string) => path.join(ROOT, 'examples', name);

t.test('the example documents lint clean and the IVR settings are accepted', async (t) => {
  const { rb } = await operatorCli(t);
  for (const doc of ['answer.xml', 'connect.json']) {
    const res = await rb('markup', 'check', example(doc));
    t.equal(res.code, 0, `${doc}: ${res.stdout}${res.stderr}`);
  }
  await rb('account', 'create', '--name', 'A');
  const ivr = await rb('number', 'add', '+14155550100', '--account', '1', '--settings', `@${example('ivr.json')}`);
  t.equal(ivr.code, 0, ivr.stderr);
});

async function startExampleApp(t: Test, secret: string): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [example('webhook-app.mjs')], { env: cleanEnv({ PORT: String(port), RINGBASE_SIGNING_SECRET: secret }), stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => { child.kill(); });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('webhook app on')) resolve(); });
    child.on('exit', (code) => reject(new Error(`webhook app exited with ${code}`)));
  });
  return `http://127.0.0.1:${port}`;
}

t.test('the README walk-through: the webhook app answers a simulated call, signatures checked', async (t) => {
  const { dataDir, database, rb } = await operatorCli(t, undefined, { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' });
  await rb('account', 'create', '--name', 'A');
  const server = await startServerProcess({ ...databaseEnv(database), RINGBASE_DATA_DIR: dataDir, RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' }, t);
  const store = await openStore(dataDir, systemClock(), database);
  const secret = await new SigningSecrets(store.accounts, createSecretBox(loadMasterKey(dataDir))).get(1);
  await store.close();

  const app = await startExampleApp(t, secret);
  await rb('number', 'add', '+14155550100', '--account', '1', '--webhook-url', `${app}/voice`);
  const call = await rb('simulate', 'inbound', '--to', '+14155550100', '--from', '+15557770001', '--digits', '1', '--url', server.url);
  t.equal(call.code, 0, call.stderr);
  t.match(call.stdout, /hears: "Thanks for calling Ringbase\."/);
  t.match(call.stdout, /hears: "It is .*GMT\."/, 'the menu answered key 1');

  const forged = await startExampleApp(t, 'not-the-secret');
  await rb('number', 'set', '+14155550100', '--webhook-url', `${forged}/voice`);
  const refused = await rb('simulate', 'inbound', '--to', '+14155550100', '--from', '+15557770001', '--url', server.url);
  t.notMatch(refused.stdout, /Thanks for calling/, 'an app with another secret refuses the request');
});

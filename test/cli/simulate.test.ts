import t from 'tap';
import { cli } from '../helpers/spawn.js';
import { operatorCli, tempDir } from '../helpers/harness.js';
import { databaseEnv } from '../helpers/backends.js';
import { startServerProcess } from '../helpers/server-process.js';
import { startWebhookApp, xml } from '../helpers/webhook-app.js';

t.test('simulate inbound drives a sandbox call through the running server', async (t) => {
  // The CLI applies the same https rule as the server: a loopback http webhook needs the dev flag there too.
  const { dataDir, database, rb } = await operatorCli(t, undefined, { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' });
  const app = await startWebhookApp(t);
  app.on('/voice', xml('<Say>Welcome.</Say><Gather action="/menu" numDigits="1" timeout="3"><Say>Press 1.</Say></Gather>'));
  app.on('/menu', (req) => xml(`<Say>You chose ${req.json.digit}.</Say><Hangup/>`));
  const server = await startServerProcess({ ...databaseEnv(database), RINGBASE_DATA_DIR: dataDir, RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' }, t);
  await rb('account', 'create', '--name', 'A');
  await rb('number', 'add', '+15550001000', '--account', '1', '--webhook-url', `${app.url}/voice`);

  const human = await rb('simulate', 'inbound', '--to', '+15550001000', '--from', '+15557770001', '--digits', '1', '--url', server.url);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /caller {4}hears: "Welcome\."/);
  t.match(human.stdout, /caller {4}presses 1/);
  t.match(human.stdout, /caller {4}hears: "You chose 1\."/);
  t.match(human.stdout, /platform {2}webhook-request/);
  t.match(human.stdout, /call CA[0-9a-f]{32} done/);

  const json = await rb('--json', 'simulate', 'inbound', '--to', '+15550001000', '--from', '+15557770001', '--digits', '1', '--url', server.url);
  const events = json.stdout.trim().split('\n').map((l) => JSON.parse(l));
  const kinds = events.map((e) => `${e.source}:${e.type}`);
  for (const k of ['caller:ringing', 'platform:webhook-request', 'platform:webhook-reply', 'caller:answered', 'caller:heard-say', 'caller:pressed', 'platform:digits', 'caller:hangup', 'simulator:done']) {
    t.ok(kinds.includes(k), `has ${k}`);
  }
  t.ok(kinds.indexOf('platform:webhook-request') < kinds.indexOf('caller:answered'), 'the webhook is asked before the answer');

  app.on('/speech', xml('<Gather input="speech" action="/said"><Say>Sales or support?</Say></Gather>'));
  app.on('/said', (req) => xml(`<Say>You said ${String(req.json.speech_result)}.</Say><Hangup/>`));
  await rb('number', 'add', '+15550001001', '--account', '1', '--webhook-url', `${app.url}/speech`);
  const spoken = await rb('simulate', 'inbound', '--to', '+15550001001', '--from', '+15557770001', '--say', 'sales', '--url', server.url);
  t.equal(spoken.code, 0, spoken.stderr);
  t.match(spoken.stdout, /caller {4}says: "sales"/);
  t.match(spoken.stdout, /caller {4}hears: "You said sales\."/, 'the words reached the speech prompt');

  const unknown = await rb('simulate', 'inbound', '--to', '+15550009999', '--from', '+15557770001', '--url', server.url);
  t.match(unknown.stdout, /rejected/, 'a number nobody holds is refused');
  const noServer = await cli(tempDir(t))('simulate', 'inbound', '--to', '+15550001000', '--from', '+15557770001');
  t.equal(noServer.code, 1);
  t.match(noServer.stderr, /no operator token/);
});

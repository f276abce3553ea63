import t from 'tap';
import { operatorCli } from '../helpers/harness.js';
import { openStore } from '../../src/repositories.js';
import { systemClock } from '../../src/clock.js';
import { DEFAULT_QUEUE_SETTINGS } from '../../src/acd/queues.js';

t.test('number pool, assignment, settings and release through the CLI', async (t) => {
  const { rb } = await operatorCli(t);
  await rb('account', 'create', '--name', 'A');
  const added = await rb('--json', 'number', 'add', '+14155550100');
  t.equal(added.code, 0, added.stderr);
  t.same(JSON.parse(added.stdout).account, null, 'in the pool');
  const claimed = JSON.parse((await rb('--json', 'number', 'add', '+14155550101', '--account', '1', '--webhook-url', 'https://app.example.com/voice', '--format', 'json')).stdout);
  t.equal(claimed.account, 1);
  t.equal(claimed.settings.webhook_url, 'https://app.example.com/voice');
  t.equal(claimed.settings.response_format, 'json');
  t.same(JSON.parse((await rb('--json', 'number', 'list', '--pool')).stdout).map((n: any) => n.number), ['+14155550100']);

  const assigned = JSON.parse((await rb('--json', 'number', 'assign', '+14155550100', '--account', '1')).stdout);
  t.equal(assigned.account, 1);
  const settings = JSON.stringify({
    schedule: { timezone: 'Europe/London', weekly: { mon: [{ start: '09:00', end: '17:00' }] } },
    after_hours: { action: 'forward', number: '+14155550199' },
    ivr: { enabled: true, prompt: 'Press 1', timeout_seconds: 5, keys: { 1: { action: 'queue', queue: 'sales' } } },
    recording: { mode: 'from-ringing', tracks: 'inbound', callback_url: null, immutable: true },
  });
  const set = await rb('--json', 'number', 'set', '+14155550100', '--settings', settings, '--client-ref', 'crm-1', '--inactive');
  t.equal(set.code, 0, set.stderr);
  const s = JSON.parse(set.stdout).settings;
  t.equal(s.active, false);
  t.equal(s.client_ref, 'crm-1');
  t.equal(s.after_hours.number, '+14155550199');
  t.equal(s.recording.immutable, true);

  const bad = await rb('number', 'set', '+14155550100', '--settings', JSON.stringify({
    client_ref: 'x'.repeat(65), schedule: { timezone: 'Mars/Olympus', weekly: { mon: [{ start: '18:00', end: '09:00' }] } },
    after_hours: { action: 'forward', number: '555' }, colour: 'red',
  }));
  t.equal(bad.code, 1);
  for (const field of ['client_ref', 'schedule.timezone', 'schedule.weekly.mon.0', 'after_hours.number', 'colour']) t.match(bad.stderr, field, `reports ${field}`);
  t.equal(JSON.parse((await rb('--json', 'number', 'show', '+14155550100')).stdout).settings.client_ref, 'crm-1', 'a refused change changes nothing');

  const released = JSON.parse((await rb('--json', 'number', 'release', '+14155550100')).stdout);
  t.equal(released.account, null);
  t.equal(released.settings.client_ref, null, 'settings reset on release');
  t.equal((await rb('number', 'add', '+14155550101')).code, 1, 'duplicates refused');
  t.match((await rb('number', 'add', '4155550101')).stderr, /E\.164/);
  t.match((await rb('number', 'assign', '+14155550101', '--account', '2')).stderr, /no account 2/);
});

t.test("number release says which callbacks and speed-to-lead campaigns calling from the number it stops", async (t) => {
  const { dataDir, database, rb } = await operatorCli(t);
  await rb('account', 'create', '--name', 'A');
  await rb('number', 'add', '+14155550101', '--account', '1');
  const store = await openStore(dataDir, systemClock(), database);
  const queue = await store.queues.create(1, 'QU0', { ...DEFAULT_QUEUE_SETTINGS, friendlyName: 'sales' });
  for (const sid of ['CB1', 'CB2']) {
    await store.scheduledCallbacks.create({ sid, accountId: 1, queueId: queue.id, to: '+15550100003', from: '+14155550101', dueAt: Date.now() + 3_600_000, attributes: {}, leadSid: null });
  }
  await store.leadCampaigns.put(1, 'spring', { queueId: queue.id, callerId: '+14155550101' });
  await store.leadCampaigns.put(1, 'collect-only', { queueId: null, callerId: '+14155550101' });
  await store.close();

  const human = await rb('number', 'release', '+14155550101');
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /released to the pool/);
  t.match(human.stdout, /stops 2 scheduled callback\(s\) of account 1: each fails when due/);
  t.match(human.stdout, /stops speed to lead of campaign\(s\) spring: their new leads are refused/);
  await rb('number', 'assign', '+14155550101', '--account', '1');
  const json = JSON.parse((await rb('--json', 'number', 'release', '+14155550101')).stdout);
  t.same(json.stops, { scheduled_callbacks: 2, campaigns: ['spring'] });
  const idle = JSON.parse((await rb('--json', 'number', 'release', '+14155550101')).stdout);
  t.same(idle.stops, { scheduled_callbacks: 0, campaigns: [] }, 'a pool number stops nothing');
});

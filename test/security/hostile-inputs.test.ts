// The hostile-URL corpus against every input that stores or uses a customer callback URL: number webhooks (the
// service the dashboard and CLI share), API call url / status_callback, a live recording's
// recording_status_callback, webhook subscriptions. Every one is refused naming its field and nothing is stored;
// plain http only to loopback and only under the dev flag. Trunk URLs: hostile-trunk-inputs.test.ts.
import t from 'tap';
import { NumberError, NumberService } from '../../src/numbers/service.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { STATIC_HOSTILE_URLS } from '../net/support/hostile-urls.js';

const DID = '+15550001000';
const count = async (h: Harness, table: string) => (await h.store.sql.one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n;

async function setup(t: Parameters<typeof startHarness>[0], dev: boolean) {
  const env: Record<string, string> = { RINGBASE_TRUSTED_PROXIES: '127.0.0.1', ...(dev ? { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } : {}) };
  const h = await startHarness(t, { env });
  const a = await h.account();
  await h.store.orgSettings.allowHost(a.id, '127.0.0.1');
  await h.store.orgSettings.allowHost(a.id, 'hooks.example.com');
  const numbers = new NumberService(h.store.numbers, { allowLocalTargets: h.config.devAllowLocalTargets });
  const number = await numbers.add(DID, a.id, {});
  // A finished call: a recording start that passes the URL rule is then refused for the call's state (409).
  await h.store.accounts.update(a.id, { recordingControls: true });
  const finished = await h.store.calls.create({ sid: `CA${'0'.repeat(32)}`, accountId: a.id, direction: 'inbound', from: '+15557770001', to: DID, status: 'completed' });
  /** What each surface says about one URL: null when accepted, else the field it names. */
  const surfaces = {
    async number(url: string): Promise<string | null> {
      try {
        await numbers.update(number, { webhook_url: url, recording: { mode: 'off', tracks: 'both', callback_url: url, immutable: false } });
        return null;
      } catch (err) {
        if (!(err instanceof NumberError)) throw err;
        return Object.keys(err.errors).sort().join(',');
      }
    },
    async callUrl(url: string): Promise<string | null> {
      const res = await h.request('POST', '/api/calls', { body: { from: DID, to: '+15557770001', url } });
      return res.status === 201 ? null : res.status === 422 ? Object.keys(res.body.errors).join(',') : `status ${res.status}`;
    },
    async statusCallback(url: string): Promise<string | null> {
      const res = await h.request('POST', '/api/calls', { body: { from: DID, to: '+15557770001', markup: '<Response><Hangup/></Response>', status_callback: url } });
      return res.status === 201 ? null : res.status === 422 ? Object.keys(res.body.errors).join(',') : `status ${res.status}`;
    },
    async recordingCallback(url: string): Promise<string | null> {
      const res = await h.request('POST', `/api/calls/${finished.sid}/recordings`, { body: { recording_status_callback: url } });
      return res.status === 409 ? null : res.status === 422 ? Object.keys(res.body.errors).join(',') : `status ${res.status}`;
    },
    async subscription(url: string): Promise<string | null> {
      const res = await h.request('POST', '/v1/webhooks', { headers: { 'x-forwarded-proto': 'https' }, body: { event_type: 'hangup', target_url: url } });
      if (res.status === 201) {
        await h.request('DELETE', `/v1/webhooks/${res.body.sid}`, { headers: { 'x-forwarded-proto': 'https' } });
        return null;
      }
      return res.status === 400 ? res.body.error.param : `status ${res.status}`;
    },
  };
  const expected = {
    number: 'recording.callback_url,webhook_url', callUrl: 'url', statusCallback: 'status_callback', recordingCallback: 'recording_status_callback', subscription: 'target_url',
  };
  return { h, surfaces, expected, stored: async () => ({ calls: await count(h, 'calls'), subs: await count(h, 'webhook_subscriptions'), settings: JSON.stringify((await h.store.numbers.getByE164(DID))!.settings) }) };
}

t.test('every hostile URL is refused on every surface, naming the field; nothing stored', async (t) => {
  const { surfaces, expected, stored } = await setup(t, false);
  const before = await stored();
  let refused = 0;
  for (const url of STATIC_HOSTILE_URLS) {
    for (const [name, surface] of Object.entries(surfaces) as Array<[keyof typeof surfaces, (u: string) => Promise<string | null>]>) {
      const field = await surface(url);
      if (field === expected[name]) refused++;
      else t.fail(`${name}: ${url} → ${field ?? 'accepted'}`);
    }
  }
  const n = Object.keys(surfaces).length;
  t.equal(refused, STATIC_HOSTILE_URLS.length * n, `${STATIC_HOSTILE_URLS.length} URLs x ${n} surfaces refused`);
  t.same(await stored(), before, 'no call, subscription or setting stored');
});

t.test('plain http: refused everywhere without the dev flag; with it, loopback only', async (t) => {
  const strict = await setup(t, false);
  const dev = await setup(t, true);
  for (const [name, surface] of Object.entries(strict.surfaces) as Array<[keyof typeof strict.surfaces, (u: string) => Promise<string | null>]>) {
    t.equal(await surface('http://127.0.0.1:9/hook'), strict.expected[name], `${name}: http loopback refused without the flag`);
    t.equal(await surface('http://hooks.example.com/hook'), strict.expected[name], `${name}: http to a public name refused`);
    t.equal(await surface('https://hooks.example.com/hook'), null, `${name}: https accepted`);
  }
  for (const [name, surface] of Object.entries(dev.surfaces) as Array<[keyof typeof dev.surfaces, (u: string) => Promise<string | null>]>) {
    t.equal(await surface('http://127.0.0.1:9/hook'), null, `${name}: http loopback accepted under the flag`);
    t.equal(await surface('http://hooks.example.com/hook'), dev.expected[name], `${name}: http to a public name still refused under the flag`);
  }
});

t.test('the refusal says why', async (t) => {
  const { h } = await setup(t, false);
  const res = await h.request('POST', '/api/calls', { body: { from: DID, to: '+15557770001', url: 'http://hooks.example.com/x' } });
  t.same(res.body.errors.url, ['The url is refused (https_required): target must use https.']);
});

// SIGKILL of a control plane with calls up on the real engines (drachtio-server + FreeSWITCH keep running): the
// restarted server finishes every such call within 15 s (completed, cause platform-restart), announces each
// with one hangup event, leaves no FreeSWITCH channel behind, and the calls' recordings are playable WAVs.
import t from 'tap';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { enginesOrSkip, startEngines } from '../helpers/engines.js';
import { openStore } from '../../src/repositories.js';
import { systemClock } from '../../src/clock.js';
import { NumberService } from '../../src/numbers/service.js';
import { decodeWav } from '../../src/media/wav.js';
import { tempDir } from '../helpers/harness.js';
import { freePort, startServerProcess } from '../helpers/server-process.js';
import { startWebhookApp, xml } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import { rtpRecorder } from '../engine-suite/real-rtp.js';
import { runCaller, type SippRun } from '../engine-suite/real-sipp.js';
import { callChannels } from '../helpers/fs-channels.js';
import { carrierAtAddress } from '../../src/store/carriers.js';

const DID = '+15550001000';
const CALLS = 2;
const FINAL_WITHIN_MS = 15_000;

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(3 * 60_000);
  t.test('SIGKILL with calls up on the real engines', async (t) => {
    const eng = await startEngines(bins);
    t.teardown(() => eng.stop());
    const scratch = mkdtempSync(path.join(tmpdir(), 'ringbase-sipp-'));
    t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
    const channels = () => callChannels(eng.freeswitch);

    const hooks = await startWebhookApp(t);
    hooks.on('/voice', xml('<Say>Ringbase is recording this call. Please hold.</Say><Pause length="600"/>'));
    hooks.on('/events', { body: '' });
    hooks.on('/hangup', { body: '' });
    const dataDir = tempDir(t);
    const store = await openStore(dataDir, systemClock());
    const account = await store.accounts.create({ name: 'crash', trunking: false, trunkCapacity: 1 });
    const key = (await store.apiKeys.create(account.id)).key;
    await store.orgSettings.allowHost(account.id, '127.0.0.1');
    await store.carriers.add('callers', carrierAtAddress('127.0.0.1', null, null));
    await new NumberService(store.numbers, { allowLocalTargets: true }).add(DID, account.id, {
      webhook_url: `${hooks.url}/voice`, hangup_url: `${hooks.url}/hangup`,
      recording: { mode: 'from-answer', tracks: 'both', callback_url: null, immutable: false },
    });
    store.close();

    const env = { ...eng.env, RINGBASE_DATA_DIR: dataDir, RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', RINGBASE_TRUSTED_PROXIES: '127.0.0.1' };
    let server = await startServerProcess(env, t);
    const api = async (method: string, urlPath: string, body?: unknown) => {
      const res = await fetch(server.url + urlPath, {
        method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, json: (await res.json()) as Record<string, any> };
    };
    t.equal((await api('POST', '/v1/webhooks', { event_type: 'hangup', target_url: `${hooks.url}/events`, timeout_ms: 5000 })).status, 201);

    const callers: SippRun[] = [];
    const ears = await Promise.all(Array.from({ length: CALLS }, () => rtpRecorder()));
    for (const rtp of ears) {
      const sipp = await runCaller({ target: `127.0.0.1:${eng.drachtio.sipPort}`, localPort: await freePort(), rtpPort: rtp.port, from: '+15557770001', to: DID, plan: { hangupAfterMs: 120_000 }, scratch });
      callers.push(sipp);
      t.teardown(() => { sipp.kill(); rtp.close(); });
    }
    await until('every caller hears the platform', 20_000, () => ears.every((r) => r.firstAudibleAt() !== null), 50);
    const list = await api('GET', '/api/calls?status=in-progress');
    const sids = (list.json.data as Array<{ sid: string }>).map((c) => c.sid);
    t.equal(sids.length, CALLS, 'the calls are in progress');
    t.equal(await channels(), CALLS, 'one FreeSWITCH channel per call');
    // Let the recordings take in some audio.
    await until('2 s of audio in every recording', 10_000, () => ears.every((r) => Date.now() - r.firstAudibleAt()! > 2_000), 50);

    const exitCodes = callers.map(() => null as number | null);
    callers.forEach((c, i) => void c.exited.then((code) => { exitCodes[i] = code; }));
    const killedAt = Date.now();
    server.child.kill('SIGKILL');
    await server.exited;
    t.equal(await channels(), CALLS, 'the channels outlive the control plane');
    const restartedAt = Date.now();
    server = await startServerProcess(env, t);
    await until('every call final', FINAL_WITHIN_MS, async () =>
      (await Promise.all(sids.map((s) => api('GET', `/api/calls/${s}`)))).every((r) => r.json.status !== 'in-progress'), 50);
    t.pass(`every call final ${Date.now() - restartedAt} ms after the restart began (limit ${FINAL_WITHIN_MS} ms)`);
    await until('no FreeSWITCH channel left', FINAL_WITHIN_MS - (Date.now() - restartedAt), async () => (await channels()) === 0, 50);
    t.pass(`no FreeSWITCH channel left ${Date.now() - restartedAt} ms after the restart began`);
    for (const sid of sids) {
      const { json } = await api('GET', `/api/calls/${sid}`);
      t.match(json, { status: 'completed', hangup_cause: 'platform-restart' }, `${sid}: completed, cause platform-restart`);
      t.ok(Date.parse(json.ended_at) <= killedAt, `ended at the last heartbeat, ${killedAt - Date.parse(json.ended_at)} ms before the kill`);
    }
    await until('every caller hung up', FINAL_WITHIN_MS - (Date.now() - restartedAt), () => exitCodes.every((c) => c !== null), 50);
    t.same(exitCodes, callers.map(() => 0), `every caller got a BYE and completed its scenario, ${Date.now() - restartedAt} ms after the restart began`);

    await hooks.waitFor('/events', CALLS);
    await hooks.waitFor('/hangup', CALLS);
    server.child.kill('SIGTERM');
    await server.exited;
    t.same(hooks.requests.filter((r) => r.path === '/events').map((r) => r.json.call_sid).sort(), [...sids].sort(), 'one hangup event per call');
    t.same(hooks.requests.filter((r) => r.path === '/hangup').map((r) => r.form.get('CallSid')).sort(), [...sids].sort(), 'one Hangup URL request per call');

    const after = await openStore(dataDir, systemClock());
    t.teardown(() => after.close());
    for (const sid of sids) {
      const [rec] = await after.recordings.listForCall(sid);
      t.equal(rec?.status, 'completed', `${sid}: recording closed and marked completed`);
      const wav = decodeWav(readFileSync(rec!.file));
      const seconds = wav.channels[0]!.length / wav.sampleRate;
      const peak = Math.max(...wav.channels.map((c) => c.reduce((m, s) => Math.max(m, Math.abs(s)), 0)));
      t.ok(seconds >= 2 && peak > 0.05, `playable: ${seconds.toFixed(1)} s, peak ${peak.toFixed(2)} (recorded ${rec!.durationMs} ms)`);
    }
  });
}

// Calls API, recording control and trunk calls: engine-agnostic, on every engine with a driver.
import type { Test } from 'tap';
import { statSync } from 'node:fs';
import path from 'node:path';
import type { EngineDriver } from './driver.js';
import { final, lastTrunkCall, makeTrunk, scene, CALLER, DID } from './flows.js';
import { xml } from '../helpers/webhook-app.js';
import { verify } from '../../src/net/index.js';
import { decodeWav, wavInfo } from '../../src/engine/sandbox/index.js';

type MakeDriver = (t: Test) => Promise<EngineDriver>;
const PARTY = '+15550004444';


const count = async (d: EngineDriver, where: string) => (await d.h.store.sql.one<{ n: number }>(`SELECT count(*) AS n FROM calls WHERE ${where}`))!.n;

async function waitFor<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function callsApiSuite(t: Test, make: MakeDriver): void {
  t.test('outbound API call answered → markup runs → completed with duration and callbacks', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await d.party(PARTY, { behavior: 'answer' });
    s.app.on('/outbound', xml('<Say>This is a reminder.</Say><Pause length="3"/><Hangup/>'));
    s.app.on('/cb', { body: '' });
    const res = await d.h.request('POST', '/api/calls', {
      body: { from: DID, to: PARTY, url: `${s.app.url}/outbound`, status_callback: `${s.app.url}/cb`, status_callback_event: 'initiated ringing in-progress completed' },
    });
    t.equal(res.status, 201, JSON.stringify(res.body));
    t.match(res.body.sid, /^CA[0-9a-f]{32}$/);
    t.equal(res.body.direction, 'outbound-api');
    t.equal(res.body.status, 'queued');
    t.equal(res.body.number, DID);
    const done = await final(d, res.body.sid);
    t.equal(done.status, 'completed');
    t.ok((done.duration ?? 0) >= 3, `duration ${done.duration}`);
    const hook = await s.app.waitFor('/outbound');
    t.same(hook.json, { from: DID, to: PARTY, direction: 'outbound-api', call_sid: res.body.sid });
    const cbs = await Promise.all([1, 2, 3, 4].map((n) => s.app.waitFor('/cb', n)));
    t.same(cbs.map((c) => c.form.get('CallbackEvent')).sort(), ['completed', 'in-progress', 'initiated', 'ringing']);
    const last = cbs.find((c) => c.form.get('CallbackEvent') === 'completed')!;
    t.equal(last.form.get('CallStatus'), 'completed');
    t.ok(verify(await d.h.app.signingSecrets.get(s.accountId), last.body, String(last.headers['x-service-signature']), Math.floor(Date.now() / 1000)).ok, 'signed');
    const fetched = await d.h.request('GET', `/api/calls/${res.body.sid}`);
    t.equal(fetched.body.status, 'completed');
    t.equal(fetched.body.duration, done.duration);
  });

  for (const [behavior, status] of [['busy', 'busy'], ['no-answer', 'no-answer'], ['fail', 'failed']] as const) {
    t.test(`outbound API call to a party that ${behavior === 'fail' ? 'fails' : `is ${behavior}`}: ${status}, with its callback`, async (t) => {
      const d = await make(t);
      const s = await scene(t, d);
      await d.party(PARTY, { behavior });
      s.app.on('/cb', { body: '' });
      const res = await d.h.request('POST', '/api/calls', {
        body: { from: DID, to: PARTY, markup: '<Response><Say>never heard</Say></Response>', timeout: 10, status_callback: `${s.app.url}/cb` },
      });
      t.equal(res.status, 201);
      const done = await final(d, res.body.sid);
      t.equal(done.status, status);
      t.equal(done.answeredAt, null);
      t.equal(done.duration, 0);
      const cb = await s.app.waitFor('/cb');
      t.equal(cb.form.get('CallStatus'), status, 'default events: completed only, with the final status');
      t.equal(s.app.requests.filter((r) => r.path === '/cb').length, 1);
    });
  }

  t.test('422 for every kind of bad from, before anything is placed', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const other = await d.h.account();
    const { NumberService } = await import('../../src/numbers/service.js');
    const numbers = new NumberService(d.h.store.numbers, { allowLocalTargets: true });
    await numbers.add('+15550001001', other.id);
    await numbers.add('+15550001002', null);
    await numbers.add('+15550001003', s.accountId, { active: false });
    const cases: Array<[string, unknown, RegExp]> = [
      ['missing', undefined, /required/],
      ['not a string', 15550001000, /string/],
      ['without the plus', '15550001000', /exactly as the dashboard shows it/],
      ['with spaces', '+1 555 000 1000', /exactly as the dashboard shows it/],
      ['with punctuation', '(555) 000-1000', /exactly as the dashboard shows it/],
      ['unknown number', '+15559999999', /not a number of this account/],
      ["another account's number", '+15550001001', /not a number of this account/],
      ['an unclaimed pool number', '+15550001002', /not a number of this account/],
      ['an inactive number', '+15550001003', /inactive/],
    ];
    for (const [name, from, message] of cases) {
      const res = await d.h.request('POST', '/api/calls', { body: { ...(from === undefined ? {} : { from }), to: PARTY, markup: '<Response/>' } });
      t.equal(res.status, 422, name);
      t.match(res.body.errors?.from?.[0], message, name);
    }
    t.equal(await count(d, "direction = 'outbound-api'"), 0, 'nothing was placed');
    t.equal(d.h.engine.partyCalls(PARTY).length, 0, 'nothing was dialled');
    const both = await d.h.request('POST', '/api/calls', { body: { from: DID, to: 'nowhere', url: `${s.app.url}/x`, markup: '<Response/>' } });
    t.same(Object.keys(both.body.errors).sort(), ['to', 'url']);
    const badMarkup = await d.h.request('POST', '/api/calls', { body: { from: DID, to: PARTY, markup: '<Response><Dance/></Response>' } });
    t.match(badMarkup.body.errors.markup[0], /unknown_verb/);
  });

  t.test('recording control on a live call: start, pause, resume, stop, download', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml('<Say loop="0">Please hold.</Say>'));
    const call = await d.inbound(CALLER, DID, { hangupAfterMs: 3_600_000 });
    const sid = await waitFor(async () => (await d.h.store.sql.one<{ sid: string }>("SELECT sid FROM calls WHERE status = 'in-progress'"))?.sid);
    // Recorded while the prompt plays: the controls below take milliseconds, and a recording of the silence
    // before the first word would hold no audio to check.
    t.ok(await call.hears, 'the caller hears the prompt');
    const started = await d.h.request('POST', `/api/calls/${sid}/recordings`, { body: {} });
    t.equal(started.status, 201, JSON.stringify(started.body));
    t.equal(started.body.status, 'in-progress');
    t.equal(started.body.channels, 2);
    const rsid = started.body.sid;
    const paused = await d.h.request('POST', `/api/calls/${sid}/recordings/${rsid}`, { body: { status: 'paused' } });
    t.equal(paused.body.status, 'paused');
    const resumed = await d.h.request('POST', `/api/calls/${sid}/recordings/${rsid}`, { body: { status: 'in-progress' } });
    t.equal(resumed.body.status, 'in-progress');
    // 200 ms of call time recorded: the controls take milliseconds, a frame of audio is 20 ms.
    await new Promise<void>((resolve) => d.h.clock.setTimeout(() => resolve(), 200));
    const early = await d.h.request('GET', `/api/recordings/${rsid}.wav`);
    t.equal(early.status, 409, 'not downloadable while in progress');
    const stopped = await d.h.request('POST', `/api/calls/${sid}/recordings/${rsid}`, { body: { status: 'stopped' } });
    t.equal(stopped.body.status, 'completed');
    // Whoever wrote it (the sandbox, FreeSWITCH), the control plane makes it private when it is finalized.
    const file = (await d.h.store.recordings.get(rsid))!.file;
    t.equal(statSync(file).mode & 0o777, 0o600, 'the recording file is 0600');
    t.equal(statSync(path.dirname(file)).mode & 0o777, 0o700, 'in a 0700 directory');
    const again = await d.h.request('POST', `/api/calls/${sid}/recordings/${rsid}`, { body: { status: 'paused' } });
    t.equal(again.status, 409);
    t.equal(again.body.code, 'recording_completed');
    const media = await d.h.download(`/api/recordings/${rsid}.wav`);
    t.equal(media.status, 200);
    t.equal(media.headers.get('content-type'), 'audio/wav');
    t.equal(Number(media.headers.get('content-length')), media.bytes.length, 'correct length');
    const info = wavInfo(decodeWav(media.bytes));
    t.equal(info.channels, 2);
    t.ok(info.peak > 0.05, 'real audio');
    const listed = await d.h.request('GET', `/api/calls/${sid}/recordings`);
    t.same(listed.body.data.map((r: any) => r.sid), [rsid]);
    const meta = await d.h.request('GET', `/api/recordings/${rsid}`);
    t.match(meta.body.media_url, new RegExp(`/api/recordings/${rsid}\\.wav$`));
    const other = await d.h.account();
    t.equal((await d.h.request('GET', `/api/recordings/${rsid}`, { key: other.key })).status, 404, "another account's recording: 404");
    t.equal((await d.h.download(`/api/recordings/${rsid}.wav`, other.key)).status, 404);
    t.equal((await d.h.request('GET', `/api/calls/${sid}`, { key: other.key })).status, 404, "another account's call: 404");
    call.hangup();
    await call.ended;
  });

  t.test('recording control refusals: 409 immutable, 503 switched off, 502 engine refusal, 409 not live', async (t) => {
    const d = await make(t);
    const s = await scene(t, d, { recording: { mode: 'from-answer', tracks: 'both', callback_url: null, immutable: true } });
    s.app.on('/voice', xml('<Say loop="0">Please hold.</Say>'));
    const call = await d.inbound(CALLER, DID, { hangupAfterMs: 3_600_000 });
    const sid = await waitFor(async () => (await d.h.store.sql.one<{ sid: string }>("SELECT sid FROM calls WHERE status = 'in-progress'"))?.sid);
    const policy = await waitFor(async () => (await d.h.store.recordings.listForCall(sid))[0]);
    t.equal(policy.immutable, true);
    for (const status of ['paused', 'stopped']) {
      const res = await d.h.request('POST', `/api/calls/${sid}/recordings/${policy.sid}`, { body: { status } });
      t.equal(res.status, 409, `${status} refused`);
      t.same(res.body, { error: "The number's recording policy is locked (immutable): this recording cannot be paused or stopped.", code: 'recording_immutable' });
    }
    t.equal((await d.h.request('POST', `/api/calls/${sid}/recordings/${policy.sid}`, { body: { status: 'in-progress' } })).status, 200, 'resume is not a change');

    const extra = await d.h.request('POST', `/api/calls/${sid}/recordings`, { body: { tracks: 'inbound' } });
    t.equal(extra.status, 201);
    t.equal(extra.body.immutable, true, 'recordings on a locked number are locked too');
    if (d.name === 'sandbox') {
      d.h.engine.faults.recordingCommand = { status: 500, body: '-ERR Cannot locate session' };
      const refused = await d.h.request('POST', `/api/calls/${sid}/recordings`, { body: {} });
      const ok = await d.h.request('POST', `/api/calls/${sid}/recordings/${extra.body.sid}`, { body: { status: 'in-progress' } });
      t.equal(ok.status, 502, 'the engine refused the resume');
      t.same(ok.body, { error: 'The call engine rejected the command: sandbox: recording resume refused', engine_status: 500, engine_body: '-ERR Cannot locate session' });
      t.equal(refused.status, 201, 'starting is not a refused command in the sandbox');
      d.h.engine.faults.recordingCommand = null;
    }
    await d.h.store.accounts.update(s.accountId, { recordingControls: false });
    const off = await d.h.request('POST', `/api/calls/${sid}/recordings`, { body: {} });
    t.equal(off.status, 503);
    t.equal(off.body.code, 'recording_controls_disabled');
    await d.h.store.accounts.update(s.accountId, { recordingControls: true });
    call.hangup();
    await call.ended;
    await d.h.app.calls.settled();
    const after = await d.h.request('POST', `/api/calls/${sid}/recordings`, { body: {} });
    t.equal(after.status, 409, 'an ended call has no recording controls');
    t.equal(after.body.code, 'call_not_in_progress');
    t.equal((await d.h.request('POST', '/api/calls/CA0000/recordings', { body: {} })).status, 404);
  });

  const trunkScene = async (t: Test, d: EngineDriver, settings: Record<string, unknown>) => {
    const s = await scene(t, d);
    await d.party(PARTY, { behavior: 'answer', hangupAfterMs: 1000 });
    return { s, trunk: await makeTrunk(d, settings) };
  };
  const childOf = (d: EngineDriver, sid: string) => d.h.store.sql.one<{ from_addr: string; to_addr: string }>('SELECT * FROM calls WHERE parent_sid = ?', [sid]);

  t.test('trunk call: voice_webhook_url takes precedence over the lookup', async (t) => {
    const d = await make(t);
    const { s, trunk } = await trunkScene(t, d, { default_caller_id: '+15550001000' });
    await d.h.store.trunks.updateSettings(trunk.id, { voice_webhook_url: `${'http://127.0.0.1:1'}/x`, cli_lookup_url: 'http://127.0.0.1:1/lookup' });
    await d.h.store.trunks.updateSettings(trunk.id, { voice_webhook_url: `${s.app.url}/trunk-voice`, cli_lookup_url: `${s.app.url}/lookup`, voice_webhook_method: 'GET' });
    s.app.on('/trunk-voice', xml('<Say>From your PBX.</Say>'));
    s.app.on('/lookup', { body: '{"callerId":"+15550001000"}' });
    const call = await d.fromTrunk(trunk, '1001', PARTY);
    await call.ended;
    const hook = await s.app.waitFor('/trunk-voice');
    t.equal(hook.method, 'GET', 'voice_webhook_method honoured');
    t.equal(hook.query.get('direction'), 'trunk');
    t.equal(s.app.requests.filter((r) => r.path === '/lookup').length, 0, 'lookup not asked');
    if (call.heard()) t.same(call.heard(), ['From your PBX.']);
  });

  t.test('trunk call: caller ID from the lookup', async (t) => {
    const d = await make(t);
    const { s, trunk } = await trunkScene(t, d, { default_caller_id: '+15550001000', allowed_caller_ids: ['+15550001000', '+15550007777'] });
    await d.h.store.trunks.updateSettings(trunk.id, { cli_lookup_url: `${s.app.url}/lookup` });
    s.app.on('/lookup', { body: '{"callerId":"+15550007777"}' });
    await (await d.fromTrunk(trunk, '1001', PARTY)).ended;
    await d.h.app.calls.settled();
    t.equal((await childOf(d, await lastTrunkCall(d)))?.from_addr, '+15550007777');
    const lookup = await s.app.waitFor('/lookup');
    t.equal(lookup.json.to, PARTY);
  });

  t.test('trunk call: a looked-up caller ID outside the allow list is refused; the default is used', async (t) => {
    const d = await make(t);
    const { s, trunk } = await trunkScene(t, d, { default_caller_id: '+15550001000', allowed_caller_ids: ['+15550001000'] });
    await d.h.store.trunks.updateSettings(trunk.id, { cli_lookup_url: `${s.app.url}/lookup` });
    s.app.on('/lookup', { body: '{"callerId":"+19995550000"}' });
    await (await d.fromTrunk(trunk, '1001', PARTY)).ended;
    await d.h.app.calls.settled();
    const sid = await lastTrunkCall(d);
    t.equal((await childOf(d, sid))?.from_addr, '+15550001000');
    t.ok((await d.h.store.calls.timeline(sid)).some((e) => e.kind === 'caller-id-refused'));
  });

  t.test('trunk call: a lookup that times out falls back to the default after 5 s', async (t) => {
    const d = await make(t);
    const { s, trunk } = await trunkScene(t, d, { default_caller_id: '+15550001000' });
    await d.h.store.trunks.updateSettings(trunk.id, { cli_lookup_url: `${s.app.url}/lookup` });
    s.app.on('/lookup', 'hang');
    const started = Date.now();
    await (await d.fromTrunk(trunk, '1001', PARTY)).ended;
    await d.h.app.calls.settled();
    t.ok(Date.now() - started >= 4_900, 'waited the 5 s lookup budget');
    t.equal((await childOf(d, await lastTrunkCall(d)))?.from_addr, '+15550001000');
  });

  t.test('trunk call: a lookup answering XML runs that document', async (t) => {
    const d = await make(t);
    const { s, trunk } = await trunkScene(t, d, { default_caller_id: '+15550001000' });
    await d.h.store.trunks.updateSettings(trunk.id, { cli_lookup_url: `${s.app.url}/lookup`, status_callback_url: `${s.app.url}/tcb`, status_callback_events: 'initiated completed' });
    s.app.on('/lookup', xml('<Say>Calls to this destination are not allowed.</Say><Hangup/>'));
    s.app.on('/tcb', { body: '' });
    const call = await d.fromTrunk(trunk, '1001', PARTY);
    await call.ended;
    await d.h.app.calls.settled();
    t.equal(await childOf(d, await lastTrunkCall(d)), undefined, 'nothing dialled');
    if (call.heard()) t.same(call.heard(), ['Calls to this destination are not allowed.']);
    const [first, second] = [await s.app.waitFor('/tcb', 1), await s.app.waitFor('/tcb', 2)];
    t.same([first.form.get('CallbackEvent'), second.form.get('CallbackEvent')].sort(), ['completed', 'initiated'], 'trunk status callbacks for the chosen events');
    t.equal(first.form.get('TrunkId'), String(trunk.id));
    t.equal(first.headers['content-type'], 'application/x-www-form-urlencoded', 'flat form-encoded');
  });

  t.test('calls over revoked or suspended trunks are refused', async (t) => {
    const d = await make(t);
    const { trunk } = await trunkScene(t, d, {});
    await d.h.request('DELETE', `/api/partner/trunks/${trunk.id}`);
    await t.rejects(d.fromTrunk(trunk, '1001', PARTY), 'the SIP layer refuses a revoked trunk');
    if (d.name === 'sandbox') {
      // Defence in depth: even if the SIP layer let a suspended trunk's call through, the control plane refuses it.
      const other = await makeTrunk(d, {});
      await d.h.store.trunks.transition(other.id, ['active'], 'suspended');
      const call = d.h.engine.simulateInbound({ from: '1001', to: PARTY, source: { kind: 'trunk', endpointName: other.endpointName } });
      await call.ended;
      t.ok(call.transcript.some((e) => e.type === 'rejected'), 'suspended: refused');
    }
    t.equal(await count(d, "direction = 'trunk'"), 0, 'no call records');
    const placed = await d.h.request('POST', '/api/calls', { body: { from: DID, to: '+15550005555', trunk_id: trunk.id, markup: '<Response/>' } });
    t.equal(placed.status, 422, 'the API refuses a revoked trunk too');
    t.match(placed.body.errors.trunk_id[0], /revoked/);
  });
}

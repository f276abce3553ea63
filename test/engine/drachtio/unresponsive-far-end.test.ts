// Far ends that stop answering, on the real engines: a participant removed while it rings behind a far end that
// answers the CANCEL with 200 but never sends the 487, and one whose far end never answers the BYE. The call, the
// participant and the conference are final within the bounds docs/engine.md states ("Bounds on an outbound leg"),
// and FreeSWITCH holds no channel for them.
import t, { type Test } from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { callChannels } from '../../helpers/fs-channels.js';
import { freePort } from '../../helpers/server-process.js';
import { until } from '../../helpers/waits.js';
import { knownNoise } from '../../helpers/correlation.js';
import { realDrivers, udpPortTaken, type RealDriver } from '../../engine-suite/real-driver.js';
import { scene, DID } from '../../engine-suite/flows.js';
import { INVITE_TRANSACTION_MS } from '../../../src/engine/drachtio/originate.js';
import { rtpFarEnd, runFarEnd, type FarEndScenario } from './support/far-end.js';
import { carrierAtAddress } from '../../../src/store/carriers.js';

const PARTY = '+15550004444';
/** Slack over a stated bound for a loaded 2-core machine: event-loop turns, SQLite writes, FreeSWITCH's teardown. */
const SLACK_MS = 5_000;
/** The leg's whole release waits at most this for a BYE's answer (leg.ts TEARDOWN_MS). */
const TEARDOWN_MS = 3_000;

/** A preview API request, form-encoded, over HTTPS through the trusted proxy. */
function v1(d: RealDriver, method: string, path: string, form?: Record<string, string>) {
  return d.h.request(method, path, {
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    headers: { 'x-forwarded-proto': 'https', ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
  });
}

/** The far end for PARTY (a carrier route to its port), listening before anything dials it. */
async function farEndFor(t: Test, d: RealDriver, scenario: FarEndScenario) {
  const port = await freePort();
  await d.h.store.carriers.add(`far-end-${port}`, carrierAtAddress('127.0.0.1', port, PARTY));
  const sipp = runFarEnd(port, scenario, d.scratch);
  t.teardown(() => sipp.kill());
  await udpPortTaken(port);
  return sipp;
}

async function noChannelsWithin(d: RealDriver, ms: number): Promise<number> {
  const began = Date.now();
  await until('FreeSWITCH to hold no call channel', ms, async () => (await callChannels(d.engines.freeswitch)) === 0, 50);
  return Date.now() - began;
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(4 * 60_000);
  const make = realDrivers(t, bins);

  t.test('a participant removed while ringing, whose far end answers the CANCEL but never sends the 487', async (t) => {
    const d = await make(t);
    await scene(t, d);
    const far = await farEndFor(t, d, { kind: 'ignore-cancel' });
    const added = await v1(d, 'POST', '/v1/conferences/Stuck/participants', { from: DID, to: PARTY });
    t.equal(added.status, 201, JSON.stringify(added.body));
    const { call_sid: callSid, conference_sid: confSid } = added.body as { call_sid: string; conference_sid: string };
    await until('the participant ringing', 15_000, async () => (await d.h.store.calls.get(callSid))?.status === 'ringing');

    const removedAt = Date.now();
    t.equal((await v1(d, 'DELETE', `/v1/conferences/${confSid}/participants/${callSid}`)).status, 204);
    const bound = INVITE_TRANSACTION_MS;
    await until('the call final', bound + SLACK_MS, async () => (await d.h.store.calls.get(callSid))?.endedAt != null, 20);
    const finalAfter = Date.now() - removedAt;
    t.ok(finalAfter >= bound - 1_000, `the 487 was awaited for the INVITE transaction's timeout (${finalAfter} ms)`);
    t.ok(finalAfter <= bound + SLACK_MS, `final ${finalAfter} ms after the DELETE (bound ${bound} ms)`);
    t.match(await d.h.store.calls.get(callSid), { status: 'canceled', answeredAt: null });
    await until('participant and conference final', SLACK_MS, async () =>
      (await d.h.store.conferences.participants(confSid)).every((p) => p.status === 'completed')
      && (await d.h.store.conferences.get(confSid))?.status === 'completed');
    t.comment(`participant and conference final ${Date.now() - removedAt} ms after the DELETE`);
    const released = await noChannelsWithin(d, SLACK_MS);
    t.comment(`FreeSWITCH held no channel ${released} ms after the call was final`);
    t.notOk(/487 Request Terminated/.test(far.output()), 'the far end never sent a 487');
  });

  t.test('a participant whose far end never answers the BYE: final at once, its channel released', async (t) => {
    const d = await make(t);
    await scene(t, d);
    const media = await rtpFarEnd(knownNoise(8000), 20);
    t.teardown(() => media.close());
    await farEndFor(t, d, { kind: 'answer', rtpPort: media.port, ringMs: 100, ignoreBye: true });
    const added = await v1(d, 'POST', '/v1/conferences/Mute/participants', { from: DID, to: PARTY });
    t.equal(added.status, 201, JSON.stringify(added.body));
    const { call_sid: callSid, conference_sid: confSid } = added.body as { call_sid: string; conference_sid: string };
    await until('the participant in the room', 15_000, async () => (await d.h.store.conferences.participants(confSid)).some((p) => p.status === 'in-progress'));

    const removedAt = Date.now();
    // The DELETE answers once the leg is released, which waits (at most TEARDOWN_MS) for the BYE's answer.
    const removing = v1(d, 'DELETE', `/v1/conferences/${confSid}/participants/${callSid}`);
    await until('the call final', SLACK_MS, async () => (await d.h.store.calls.get(callSid))?.endedAt != null, 5);
    const callFinal = Date.parse((await d.h.store.calls.get(callSid))!.endedAt!) - removedAt;
    t.ok(callFinal <= SLACK_MS, `the call final (ended_at) ${callFinal} ms after the DELETE: it ends when the BYE goes out`);
    await until('participant and conference final', TEARDOWN_MS + SLACK_MS, async () =>
      (await d.h.store.conferences.participants(confSid)).every((p) => p.status === 'completed') && (await d.h.store.conferences.get(confSid))?.status === 'completed', 5);
    const finalAfter = Date.now() - removedAt;
    t.ok(finalAfter <= TEARDOWN_MS + SLACK_MS, `participant and conference final ${finalAfter} ms after the DELETE (bound ${TEARDOWN_MS} ms)`);
    t.equal((await removing).status, 204);
    t.comment(`the DELETE answered ${Date.now() - removedAt} ms after it was sent`);
    t.match(await d.h.store.calls.get(callSid), { status: 'completed' });
    const released = await noChannelsWithin(d, TEARDOWN_MS + SLACK_MS);
    t.comment(`FreeSWITCH held no channel ${finalAfter + released} ms after the DELETE`);
  });
}

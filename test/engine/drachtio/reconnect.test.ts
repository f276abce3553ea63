// Reconnection on real engines: drachtio-server and FreeSWITCH are restarted under a running app. Once the app's
// health says ok again, a DID call must be delivered, answered and heard, at once (the first call after the
// restart is the one a half-finished reconnect would lose). While FreeSWITCH is away calls are refused with 503.
import t, { type Test } from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { xml } from '../../helpers/webhook-app.js';
import { realDrivers, type RealDriver } from '../../engine-suite/real-driver.js';
import { scene, CALLER, DID, type Scene } from '../../engine-suite/flows.js';
import { bounded, until } from '../../helpers/waits.js';

const SAY = 'Ringbase is listening.';
/** A restarted engine is back and reconnected well within this (drachtio-srf and the media re-dial back off). */
const RECONNECT_MS = 20_000;
/** One Say call, from INVITE to the platform's BYE. */
const CALL_MS = 20_000;
/** A refusal takes one SIP round trip on loopback: this only bounds "not hanging". */
const REFUSAL_MS = 5_000;

async function healthz(d: RealDriver): Promise<{ status: number; detail: string }> {
  const res = await d.h.request('GET', '/healthz', { key: null });
  return { status: res.status, detail: String(res.body?.engine?.detail) };
}

/** Restarts one engine; returns whether health reported it down meanwhile, once health is ok again. */
async function restartAndWait(d: RealDriver, which: 'drachtio' | 'freeswitch', whileDown?: () => Promise<void>): Promise<{ sawDown: boolean; ms: number }> {
  const start = Date.now();
  let sawDown = false;
  let restarting = true;
  const watch = (async () => {
    while (restarting) {
      if (!d.engine.health().ok) sawDown = true;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  try {
    await d.engines.restart(which, whileDown);
    // On a loaded machine the engine can hear of the old process's end after the new one is up: health is not
    // taken at its word until it has seen the engine go.
    await until(() => `health to report ${which} down after its restart`, RECONNECT_MS, () => sawDown);
  } finally {
    restarting = false;
    await watch;
  }
  // As soon as health says ok, with no grace period: that is the moment a call must work.
  await until(() => `engine health ok after the ${which} restart (${d.engine.health().detail})`, RECONNECT_MS, () => d.engine.health().ok);
  return { sawDown, ms: Date.now() - start };
}

/** One DID call to the Say document: answered, heard, webhook reached, completed. */
async function sayCall(t: Test, d: RealDriver, s: Scene, label: string): Promise<void> {
  const hooksBefore = s.app.requests.filter((r) => r.path === '/voice').length;
  const started = Date.now();
  // The caller's own hang-up timer is a safety net only: the platform hangs up after the Say.
  const call = await bounded(`${label}: the call was not answered`, CALL_MS, d.inbound(CALLER, DID, { hangupAfterMs: CALL_MS }));
  t.ok(await call.answered, `${label}: answered`);
  t.ok(await call.audible, `${label}: the caller hears the Say (peak ${call.audio().peak.toFixed(3)})`);
  const code = await bounded(`${label}: the call did not end`, CALL_MS, call.ended);
  t.equal(code, 0, `${label}: the caller's scenario completed (platform's BYE)`);
  await bounded(`${label}: webhook`, 1_000, s.app.waitFor('/voice', hooksBefore + 1));
  const final = await s.finalCall();
  t.equal(final.status, 'completed', `${label}: call completed in ${Date.now() - started} ms`);
  t.ok(final.answeredAt, `${label}: answered in the call record`);
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(90_000);
  const make = realDrivers(t, bins);

  t.test('drachtio-server restarts: once health is ok, DID calls are delivered at once', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml(`<Say>${SAY}</Say><Hangup/>`));
    await sayCall(t, d, s, 'before the restart');

    // The first call right after each reconnect is the one a half-done reconnect would lose: do it more than once.
    for (let round = 1; round <= 3; round++) {
      const { sawDown, ms } = await restartAndWait(d, 'drachtio');
      t.ok(sawDown, `restart ${round}: health reported drachtio down meanwhile (back in ${ms} ms)`);
      await sayCall(t, d, s, `restart ${round}, first call`);
    }
    await sayCall(t, d, s, 'restart 3, second call');
    t.equal((await healthz(d)).status, 200, '/healthz ok');
    await until('no call left in the engine', 5_000, () => d.engine.activeLegs() === 0, 20);
  });

  t.test('FreeSWITCH restarts: calls are refused with 503 while it is away, then work again', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml(`<Say>${SAY}</Say><Hangup/>`));
    await sayCall(t, d, s, 'before the restart');

    const { sawDown, ms } = await restartAndWait(d, 'freeswitch', async () => {
      await until('health to report FreeSWITCH down', RECONNECT_MS, () => !d.engine.health().ok);
      const health = await healthz(d);
      t.equal(health.status, 503, '/healthz degraded while FreeSWITCH is away');
      t.match(health.detail, /FreeSWITCH disconnected/, 'and says why');
      const callsBefore = (await d.h.store.sql.one<{ n: number }>('SELECT count(*) AS n FROM calls'))?.n;
      const hooksBefore = s.app.requests.length;
      const started = Date.now();
      const call = await bounded('a call while FreeSWITCH is away', REFUSAL_MS, d.inbound(CALLER, DID, { hangupAfterMs: CALL_MS }));
      t.not(await bounded('the refused caller', REFUSAL_MS, call.ended), 0, 'not answered');
      t.ok(Date.now() - started < REFUSAL_MS, `refused at once (${Date.now() - started} ms)`);
      t.match(call.sipp.output(), /503/, 'with 503 Service Unavailable');
      t.equal(call.audio().packets, 0, 'no media');
      t.equal(s.app.requests.length, hooksBefore, 'webhook not called');
      t.equal((await d.h.store.sql.one<{ n: number }>('SELECT count(*) AS n FROM calls'))?.n, callsBefore, 'no call record');
    });
    t.ok(sawDown, `health reported FreeSWITCH down meanwhile (back in ${ms} ms)`);
    for (let n = 1; n <= 3; n++) await sayCall(t, d, s, `after the restart, call ${n}`);
    t.equal((await healthz(d)).status, 200, '/healthz ok');
    await until('no call left in the engine', 5_000, () => d.engine.activeLegs() === 0, 20);
  });
}

// Trunks on real SIP: digest REGISTER against the provisioned credentials, revocation, and the refusal of
// INVITEs from sources that are neither carriers nor trunks.
import t from 'tap';
import { systemClock } from '../../../src/clock.js';
import { openStore } from '../../../src/repositories.js';
import { enginesOrSkip } from '../../helpers/engines.js';
import { freePort } from '../../helpers/server-process.js';
import { realDrivers, type RealDriver } from '../../engine-suite/real-driver.js';
import { runCaller, runRegister } from '../../engine-suite/real-sipp.js';
import { rtpRecorder } from '../../engine-suite/real-rtp.js';
import { makeTrunk, scene, CALLER, DID } from '../../engine-suite/flows.js';

async function trunk(d: RealDriver) {
  await d.h.account();
  return makeTrunk(d, { transport: 'udp' });
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(5 * 60_000);
  const make = realDrivers(t, bins);

  t.test('REGISTER with the right password is accepted; the trunk is active', async (t) => {
    const d = await make(t);
    const tk = await trunk(d);
    t.equal((await d.h.request('GET', `/api/partner/trunks/${tk.id}`)).body.status, 'active', 'active once the SIP layer holds its credentials');
    const reg = await runRegister(d.sipTarget, await freePort(), { username: tk.endpointName, password: tk.password }, d.scratch);
    t.equal(await reg.exited, 0, 'registered');
    const [binding] = await d.engine.registrations(tk.endpointName);
    t.match(binding?.contact, new RegExp(`^sip:${tk.endpointName}@127\\.0\\.0\\.1:\\d+`));
    t.ok(binding!.expiresAt > Date.now() + 100_000, 'expiry kept');
    const reopened = await openStore(d.h.dataDir, systemClock());
    t.teardown(() => reopened.close());
    t.same(await reopened.registrations.listLive(tk.endpointName, Date.now()), [binding], 'stored in the database, expiry included');
  });

  t.test('REGISTER with a wrong password is refused', async (t) => {
    const d = await make(t);
    const tk = await trunk(d);
    const reg = await runRegister(d.sipTarget, await freePort(), { username: tk.endpointName, password: 'not-' + tk.password }, d.scratch);
    t.not(await reg.exited, 0, 'refused');
    t.match(reg.output(), /403/);
    t.same(await d.engine.registrations(tk.endpointName), []);
  });

  t.test('a revoked trunk can neither register nor call', async (t) => {
    const d = await make(t);
    const tk = await trunk(d);
    t.equal(await (await runRegister(d.sipTarget, await freePort(), { username: tk.endpointName, password: tk.password }, d.scratch)).exited, 0);
    t.equal((await d.h.request('DELETE', `/api/partner/trunks/${tk.id}`)).status < 300, true, 'revoked');
    t.same(await d.engine.registrations(tk.endpointName), [], 'registrations ended');
    t.not(await (await runRegister(d.sipTarget, await freePort(), { username: tk.endpointName, password: tk.password }, d.scratch)).exited, 0, 'REGISTER refused');
    await t.rejects(d.fromTrunk(tk, '1001', '+15550004444'), 'INVITE refused');
  });

  t.test('an INVITE to a DID from an unknown source is challenged, then refused before any media', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const rtp = await rtpRecorder();
    t.teardown(() => rtp.close());
    // Not a carrier: the 407 is answered with credentials of no trunk, so the INVITE is refused.
    const sipp = await runCaller({
      target: d.sipTarget, localPort: await freePort(), rtpPort: rtp.port, from: CALLER, to: DID, plan: {}, scratch: d.scratch,
      auth: { username: 'nobody', password: 'guess' },
    });
    t.not(await sipp.exited, 0, 'not answered');
    t.match(sipp.output(), /403/);
    t.equal(rtp.packets(), 0, 'no media');
    t.equal(s.app.requests.length, 0, 'webhook not called');
    t.equal((await d.h.store.sql.one<{ n: number }>('SELECT count(*) AS n FROM calls'))?.n, 0, 'no call record');
  });
}

// The platform's standing links to carriers, on the real engines: it registers to a sipp registrar that challenges,
// refreshes before the granted expiry, registers again after the registrar restarts, and takes an INVITE sent to the
// Contact it registered as that carrier's call to the number in its To; a gateway that stops answering OPTIONS is
// skipped by calls within two intervals and tried again once it answers.
import t, { type Test } from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { freePort } from '../../helpers/server-process.js';
import { until } from '../../helpers/waits.js';
import { xml } from '../../helpers/webhook-app.js';
import { cli as runCli } from '../../helpers/spawn.js';
import { databaseEnv } from '../../helpers/backends.js';
import { operatorToken } from '../../../src/operator-token.js';
import { realDrivers, type RealDriver } from '../../engine-suite/real-driver.js';
import { mediaPort, runCaller } from '../../engine-suite/real-sipp.js';
import { scene, CALLER, DID } from '../../engine-suite/flows.js';
import { PASSWORD, REALM, USER, startOptionsResponder, startRegistrar } from './support/carrier-peers.js';
import { E164_RULES } from '../../../src/net/number-rules.js';
import { createSecretBox } from '../../../src/crypto/secret-box.js';
import type { CarrierSettings } from '../../../src/store/carriers.js';

const PARTY = '+442079460001';
const BASE: CarrierSettings = {
  sources: [], gateways: [], routes: [{ prefix: '+44', priority: 0, weight: 1 }], auth: null, registration: null,
  numbers: E164_RULES, dtmf: 'rfc2833', codecs: [], srtp: 'off', optionsPingS: null,
};
/** The carrier list is read again every 5 s; a registration or ping starts within that. */
const FOLLOWS_MS = 15_000;

const registration = (d: RealDriver) => d.engine.carrierLinks().registrations.find((r) => r.carrier === 'line');
const gatewayUp = (d: RealDriver, port: number) => d.engine.carrierLinks().gateways.find((g) => g.gateway.endsWith(`:${port}`))?.up;

/** The registration as the operator sees it: /metrics, GET /operator/carriers, `ringbase carrier status`. */
async function showsRegistered(t: Test, d: RealDriver): Promise<void> {
  const token = operatorToken(d.h.dataDir, false)!;
  const metrics = await d.h.request('GET', '/metrics', { key: null });
  t.match(metrics.text, /^ringbase_carrier_registered\{carrier="line"\} 1$/m, '/metrics');
  const route = await d.h.request('GET', '/operator/carriers', { key: null, headers: { authorization: `Bearer ${token}` } });
  t.match(route.body, { gateways: [], registrations: [{ carrier: 'line', state: 'registered', last_status: 200, last_error: null }] }, 'GET /operator/carriers');
  t.equal((await d.h.request('GET', '/operator/carriers', { key: null })).status, 401, 'only with the operator token');
  const cli = await runCli(d.h.dataDir, databaseEnv(d.h.config.database))('carrier', 'status', '--url', d.h.url);
  t.match(cli.stdout, /^registration line\tregistered\tuntil \S+$/m, `ringbase carrier status (${cli.stderr})`);
}

/** The gateways tried by a call to PARTY placed through the API, once it ended. */
async function gatewaysTried(t: Test, d: RealDriver): Promise<string[]> {
  const placed = await d.h.request('POST', '/api/calls', { body: { from: DID, to: PARTY, timeout: 20, markup: '<Response><Hangup/></Response>' } });
  t.equal(placed.status, 201, `placed (${placed.status === 201 ? 'queued' : JSON.stringify(placed.body)})`);
  const attempts = async () => (await d.h.store.calls.timeline(placed.body.sid)).filter((e) => e.kind === 'carrier-attempt');
  await until('the call tried its gateways', 30_000, async () => (await attempts()).some((e) => e.detail.failover === false), 50);
  return (await attempts()).map((e) => String(e.detail.gateway));
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(4 * 60_000);
  const make = realDrivers(t, bins);

  t.test('registers with the carrier\'s credentials, refreshes, registers again after a restart, and takes calls on the registration', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml('<Say>Welcome on the registered line.</Say><Hangup/>'));
    const port = await freePort();
    let registrar = await startRegistrar(d.scratch, port, 4);
    t.teardown(() => registrar.kill());
    await d.h.store.carriers.add('line', {
      ...BASE, auth: { username: USER, passwordSealed: createSecretBox(d.h.masterKey).seal(PASSWORD), realm: REALM },
      registration: { host: '127.0.0.1', port, transport: 'udp', expires: 600 },
    });
    await until(() => `registered (${JSON.stringify(registration(d))})`, FOLLOWS_MS, () => registration(d)?.state === 'registered', 50);
    // Three verified REGISTERs within about two grants: it refreshes before the 4 s the registrar granted run out.
    await until(() => `two refreshes (verdicts ${registrar.verdicts().join(',')})`, 12_000, () => registrar.verdicts().length >= 3, 50);
    t.same(registrar.verdicts().slice(0, 3), ['ok', 'ok', 'ok'], 'the registrar verified the digest answer each time');
    const times = registrar.registers().filter((r) => r.headers.authorization).map((r) => r.at);
    t.ok(times[1]! - times[0]! < 4_000 && times[2]! - times[1]! < 4_000, `refreshed before expiry (${times[1]! - times[0]!} ms, ${times[2]! - times[1]!} ms apart)`);
    const contact = /<sip:([^@>]+)@/.exec(registrar.registers()[0]!.headers.contact ?? '')?.[1];
    await showsRegistered(t, d);
    t.match(contact, /^rb[0-9a-f]{24}$/, 'our Contact user is not guessable');

    await registrar.kill();
    await until(() => `failed once the registrar is gone (${JSON.stringify(registration(d))})`, 15_000, () => registration(d)?.state === 'failed', 50);
    registrar = await startRegistrar(d.scratch, port, 4);
    await until(() => `registered again (${JSON.stringify(registration(d))})`, 20_000, () => registration(d)?.state === 'registered', 50);
    t.pass('registered again after the registrar restarted');

    // The provider calls the Contact we registered, To the number; the caller is in no carrier's sources.
    const caller = await runCaller({ target: d.sipTarget, localPort: await freePort(), rtpPort: await mediaPort(), from: CALLER, to: DID, requestUser: contact!, plan: {}, scratch: d.scratch });
    t.teardown(() => caller.kill());
    t.equal(await caller.exited, 0, 'the call was answered and hung up by the document', { sipp: caller.output().slice(-600) });
    const call = await d.h.store.sql.one<{ from_addr: string; to_addr: string }>("SELECT from_addr, to_addr FROM calls WHERE direction = 'inbound' ORDER BY created_at DESC LIMIT 1");
    t.same(call, { from_addr: CALLER, to_addr: DID }, 'the number in its To reached its webhook');

    const stranger = await runCaller({ target: d.sipTarget, localPort: await freePort(), rtpPort: await mediaPort(), from: CALLER, to: DID, requestUser: 'rb-carrier-1', plan: {}, scratch: d.scratch });
    t.teardown(() => stranger.kill());
    t.not(await stranger.exited, 0, 'a call to another Contact user is no carrier\'s: challenged and refused');
    t.notOk(d.h.logs.some((line) => line.includes(PASSWORD)), 'the password is in no log line (the app logs at debug here)');
  });

  t.test('a gateway that stops answering OPTIONS is skipped within two intervals and tried again once it answers', async (t) => {
    const d = await make(t);
    await scene(t, d);
    const [first, second] = [await freePort(), await freePort()];
    let responder = await startOptionsResponder(first);
    t.teardown(() => responder.kill());
    const other = await startOptionsResponder(second);
    t.teardown(() => other.kill());
    await d.h.store.carriers.add('acme', {
      ...BASE, optionsPingS: 1,
      gateways: [{ host: '127.0.0.1', port: first, transport: 'udp', priority: 0, weight: 1 }, { host: '127.0.0.1', port: second, transport: 'udp', priority: 1, weight: 1 }],
    });
    await until('the first gateway pinged and answering', FOLLOWS_MS, () => gatewayUp(d, first) === true && d.engine.carrierLinks().gateways.some((g) => g.checkedAt !== null && g.gateway.endsWith(`:${first}`)), 50);
    t.match((await d.h.request('GET', '/metrics', { key: null })).text, new RegExp(`^ringbase_carrier_gateway_up\\{carrier="acme",gateway="acme/udp:127\\.0\\.0\\.1:${first}"\\} 1$`, 'm'), '/metrics shows it up');

    await responder.kill();
    const killed = Date.now();
    // Two intervals, and a little for timers firing late on a busy machine.
    await until('the first gateway down', 2_000 + 750, () => gatewayUp(d, first) === false, 20);
    t.pass(`down ${Date.now() - killed} ms after it stopped answering`);
    t.equal((await gatewaysTried(t, d))[0], `acme/udp:127.0.0.1:${second}`, 'a call skips it');

    responder = await startOptionsResponder(first);
    const back = Date.now();
    await until('the first gateway up again', 2_000 + 750, () => gatewayUp(d, first) === true, 20);
    t.pass(`up ${Date.now() - back} ms after it answers again`);
    t.equal((await gatewaysTried(t, d))[0], `acme/udp:127.0.0.1:${first}`, 'a call tries it first again');
  });
}

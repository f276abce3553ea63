// Calls through carriers on the real engines, each provider a sipp: a gateway that challenges with 407 is answered
// with the carrier's credentials; a gateway that answers 503 or nothing at all fails over to the next; a 404 does
// not; numbers are written and read by the carriers' number rules; keys sent as SIP INFO reach a Gather. Each
// connected call is proven by its audio (the caller and the far end each hear the other's tone), and the caller's
// timeline shows every gateway tried.
import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { enginesOrSkip } from '../../helpers/engines.js';
import { freePort } from '../../helpers/server-process.js';
import { until } from '../../helpers/waits.js';
import { xml } from '../../helpers/webhook-app.js';
import { realDrivers, udpPortTaken, type RealDriver } from '../../engine-suite/real-driver.js';
import { tonePhone } from '../../engine-suite/rtp-phone.js';
import type { G711 } from '../../engine-suite/real-rtp.js';
import { mediaPort, runCaller, runRefuser, runRtpParty, type DigestChallenge } from '../../engine-suite/real-sipp.js';
import { scene, CALLER, DID } from '../../engine-suite/flows.js';
import { listenFor, tally, toneCaller, CALLER_HZ, WAIT_MS } from './support/leg-audio.js';
import { E164_RULES } from '../../../src/net/number-rules.js';
import { carrierAtAddress } from '../../../src/store/carriers.js';
import { createSecretBox } from '../../../src/crypto/secret-box.js';
import type { CarrierGateway, CarrierSettings } from '../../../src/store/carriers.js';

const PARTY = '+442079460001';
const PARTY_HZ = 700;
const CHALLENGE: DigestChallenge = { realm: 'sip.acme.example', nonce: 'acme-nonce-1' };
const CREDENTIALS = { username: 'acme-user', password: 'acme-secret-1' };

/** Whether the party got an INVITE whose digest answers the challenge with CREDENTIALS (RFC 2617, no qop), checked as the gateway would. */
function answeredChallenge(messages: string): boolean {
  const header = /^Proxy-Authorization:\s*Digest (.*)$/mi.exec(messages)?.[1];
  if (!header) return false;
  const p = Object.fromEntries([...header.matchAll(/(\w+)="?([^",]*)"?/g)].map((m) => [m[1], m[2]]));
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');
  const expected = md5(`${md5(`${CREDENTIALS.username}:${CHALLENGE.realm}:${CREDENTIALS.password}`)}:${CHALLENGE.nonce}:${md5(`INVITE:${p.uri}`)}`);
  return p.username === CREDENTIALS.username && p.realm === CHALLENGE.realm && p.nonce === CHALLENGE.nonce && p.response === expected;
}

const gateway = (port: number, priority = 0): CarrierGateway => ({ host: '127.0.0.1', port, transport: 'udp', priority, weight: 1 });

/** A carrier for the party's numbers with these gateways in order; no sources (its gateways only take our calls). */
async function carrierFor(d: RealDriver, gateways: CarrierGateway[], more: Partial<CarrierSettings> = {}): Promise<void> {
  await d.h.store.carriers.add('acme', {
    sources: [], gateways, routes: [{ prefix: '+44', priority: 0, weight: 1 }], auth: null, registration: null,
    numbers: E164_RULES, dtmf: 'rfc2833', codecs: [], srtp: 'off', optionsPingS: null, ...more,
  });
}

/** The far end that answers (on its gateway's port) with a tone; resolves once it listens. */
async function tonePartyAt(t: Test, d: RealDriver, port: number, o: { challenge?: DigestChallenge; codec?: G711 } = {}) {
  const codec = o.codec ?? 'PCMA';
  const phone = await tonePhone(PARTY_HZ, codec);
  const sipp = await runRtpParty(port, phone.port, d.scratch, { codec, ringMs: 200, ...(o.challenge ? { challenge: o.challenge } : {}) });
  t.teardown(() => { sipp.kill(); phone.close(); });
  await udpPortTaken(port);
  return { phone, sipp };
}

/** A caller to the DID whose document dials PARTY; both hear each other, measured; returns the caller's call sid. */
async function dialAndHear(t: Test, d: RealDriver, party: Awaited<ReturnType<typeof tonePartyAt>>, label: string): Promise<string> {
  const call = await toneCaller(t, d, CALLER, DID, CALLER_HZ);
  const [callerHeard, partyHeard] = await Promise.all([
    listenFor(call.phone, 0, [PARTY_HZ], [], { senders: { [PARTY_HZ]: party.phone } }),
    listenFor(party.phone, 0, [CALLER_HZ], [], { senders: { [CALLER_HZ]: call.phone } }),
  ]);
  const calls = tally(t);
  calls.record(label, [['caller hears the far end', callerHeard], ['far end hears the caller', partyHeard]], party.sipp.output().slice(-400));
  calls.check(label);
  const sid = (await d.h.store.sql.one<{ sid: string }>("SELECT sid FROM calls WHERE direction = 'inbound' ORDER BY created_at DESC LIMIT 1"))!.sid;
  await call.hangup();
  return sid;
}

/** The caller's carrier-attempt entries once `count` are there. */
async function attempts(d: RealDriver, sid: string, count: number): Promise<Array<Record<string, unknown>>> {
  const read = async () => (await d.h.store.calls.timeline(sid)).filter((e) => e.kind === 'carrier-attempt').map((e) => e.detail as Record<string, unknown>);
  await until(`${count} carrier attempts on the timeline`, WAIT_MS, async () => (await read()).length >= count, 50);
  return read();
}

/** A UDP port that counts what arrives (a gateway that must not be tried). */
async function watchedPort(t: Test): Promise<{ port: number; packets: () => number }> {
  const socket = createSocket('udp4');
  let packets = 0;
  socket.on('message', () => { packets++; });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  t.teardown(() => socket.close());
  return { port: socket.address().port, packets: () => packets };
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(6 * 60_000);
  const make = realDrivers(t, bins);
  const dialling = async (t: Test, d: RealDriver) => (await scene(t, d)).app.on('/voice', xml(`<Dial timeout="30"><Number>${PARTY}</Number></Dial>`));

  t.test('a gateway that challenges with 407 gets the carrier\'s credentials, and the call connects with audio both ways', async (t) => {
    const d = await make(t);
    await dialling(t, d);
    const port = await freePort();
    await carrierFor(d, [gateway(port)], { auth: { username: CREDENTIALS.username, passwordSealed: createSecretBox(d.h.masterKey).seal(CREDENTIALS.password), realm: null } });
    const party = await tonePartyAt(t, d, port, { challenge: CHALLENGE });
    const sid = await dialAndHear(t, d, party, 'through the challenging gateway');
    t.ok(answeredChallenge(party.sipp.messages()), 'the INVITE after the 407 answered the challenge with the carrier\'s credentials');
    t.notMatch(party.sipp.messages(), CREDENTIALS.password, 'the password itself never went on the wire');
    t.notOk(d.h.logs.some((line) => line.includes(CREDENTIALS.password)), 'nor into a log line (the app logs at debug here)');
    t.match(await attempts(d, sid, 1), [{ carrier: 'acme', gateway: `acme/udp:127.0.0.1:${port}`, sip_status: 200, outcome: 'answered', failover: false }]);
  });

  t.test('number rules: a caller writing national numbers reaches the DID, and the dialled gateway gets its own format', async (t) => {
    const d = await make(t);
    await dialling(t, d);
    // The callers' carrier writes US numbers nationally (5550001000); the gateway's carrier wants UK national
    // numbers behind a tech prefix, and other countries with 00.
    await d.h.store.carriers.add('tone-callers', {
      ...carrierAtAddress('127.0.0.1', null, '+1999'), numbers: { ...E164_RULES, format: 'national', countryCode: '1' },
    });
    const port = await freePort();
    await carrierFor(d, [gateway(port)], { numbers: { format: 'national', countryCode: '44', nationalPrefix: '0', internationalPrefix: '00', techPrefix: '9' } });
    const party = await tonePartyAt(t, d, port);
    const call = await toneCaller(t, d, CALLER.slice(2), DID.slice(2), CALLER_HZ);
    const [callerHeard, partyHeard] = await Promise.all([
      listenFor(call.phone, 0, [PARTY_HZ], [], { senders: { [PARTY_HZ]: party.phone } }),
      listenFor(party.phone, 0, [CALLER_HZ], [], { senders: { [CALLER_HZ]: call.phone } }),
    ]);
    const calls = tally(t);
    calls.record('national numbers both ways', [['caller hears the far end', callerHeard], ['far end hears the caller', partyHeard]]);
    calls.check('national numbers both ways');
    const inbound = await d.h.store.sql.one<{ from_addr: string; to_addr: string }>("SELECT from_addr, to_addr FROM calls WHERE direction = 'inbound' ORDER BY created_at DESC LIMIT 1");
    t.same(inbound, { from_addr: CALLER, to_addr: DID }, 'the inbound call is stored in E.164');
    const invite = party.sipp.messages();
    t.match(invite, /^INVITE sip:902079460001@127\.0\.0\.1/m, 'request URI: tech prefix, then the UK national number');
    t.match(invite, /^From: <sip:0015557770001@/m, 'caller ID: a US number written with the international prefix');
    await call.hangup();
  });

  t.test('a carrier\'s codec preference is the offer: only its codecs, in its order', async (t) => {
    const d = await make(t);
    await dialling(t, d);
    const port = await freePort();
    await carrierFor(d, [gateway(port)], { codecs: ['PCMU'] });
    const party = await tonePartyAt(t, d, port, { codec: 'PCMU' });
    await dialAndHear(t, d, party, 'PCMU only');
    t.match(party.sipp.messages(), /^m=audio \d+ RTP\/AVP 0 101 13$/m, 'the INVITE offered PCMU with keys and comfort noise, nothing else');
  });

  t.test('keys a carrier sends as SIP INFO reach a Gather', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml('<Gather numDigits="3" action="/digits" timeout="10"><Say>Enter three digits</Say></Gather><Say>No input.</Say>'));
    s.app.on('/digits', xml('<Hangup/>'));
    await d.h.store.carriers.add('info-callers', { ...carrierAtAddress('127.0.0.1', null, '+1999'), dtmf: 'info' });
    const caller = await runCaller({
      target: d.sipTarget, localPort: await freePort(), rtpPort: await mediaPort(), from: CALLER, to: DID, infoKeys: '4*7', plan: {}, scratch: d.scratch,
    });
    t.teardown(() => caller.kill());
    const got = await s.app.waitFor('/digits');
    t.equal(got.json.digits, '4*7', 'Digits are the keys sent as INFO');
    t.equal(await caller.exited, 0, 'each INFO answered 200, then the platform hung up', { sipp: caller.output().slice(-600) });
  });

  t.test('the first gateway answering 503 fails over to the second, which connects', async (t) => {
    const d = await make(t);
    await dialling(t, d);
    const [first, second] = [await freePort(), await freePort()];
    await carrierFor(d, [gateway(first, 0), gateway(second, 1)]);
    const refuser = await runRefuser(first, 503, 'Service Unavailable', d.scratch);
    t.teardown(() => refuser.kill());
    await udpPortTaken(first);
    const party = await tonePartyAt(t, d, second);
    const sid = await dialAndHear(t, d, party, 'after a 503 from the first gateway');
    t.match(await attempts(d, sid, 2), [
      { gateway: `acme/udp:127.0.0.1:${first}`, sip_status: 503, outcome: 'failed', failover: true },
      { gateway: `acme/udp:127.0.0.1:${second}`, sip_status: 200, outcome: 'answered', failover: false },
    ]);
  });

  t.test('the first gateway not answering at all fails over to the second, which connects', async (t) => {
    const d = await make(t);
    await dialling(t, d);
    const silent = await watchedPort(t);
    const second = await freePort();
    await carrierFor(d, [gateway(silent.port, 0), gateway(second, 1)]);
    const party = await tonePartyAt(t, d, second);
    const sid = await dialAndHear(t, d, party, 'after silence from the first gateway');
    t.ok(silent.packets() > 0, 'the INVITE went to the silent gateway first');
    t.match(await attempts(d, sid, 2), [
      { gateway: `acme/udp:127.0.0.1:${silent.port}`, sip_status: null, outcome: 'no-response', failover: true },
      { gateway: `acme/udp:127.0.0.1:${second}`, outcome: 'answered' },
    ]);
  });

  t.test('a 404 from the first gateway does not fail over: the number is wrong, and the second is never tried', async (t) => {
    const d = await make(t);
    await dialling(t, d);
    const first = await freePort();
    const second = await watchedPort(t);
    await carrierFor(d, [gateway(first, 0), gateway(second.port, 1)]);
    const refuser = await runRefuser(first, 404, 'Not Found', d.scratch);
    t.teardown(() => refuser.kill());
    await udpPortTaken(first);
    const call = await toneCaller(t, d, CALLER, DID, CALLER_HZ);
    t.equal(await refuser.exited, 0, 'the first gateway refused the call');
    const sid = (await d.h.store.sql.one<{ sid: string }>("SELECT sid FROM calls WHERE direction = 'inbound' ORDER BY created_at DESC LIMIT 1"))!.sid;
    t.match(await attempts(d, sid, 1), [{ gateway: `acme/udp:127.0.0.1:${first}`, sip_status: 404, outcome: 'failed', failover: false }]);
    const child = () => d.h.store.sql.one<{ status: string }>('SELECT status FROM calls WHERE parent_sid = ?', [sid]);
    await until('the dialled call ended', WAIT_MS, async () => !['queued', 'ringing', 'in-progress', undefined].includes((await child())?.status), 50);
    t.match(await child(), { status: 'failed' }, 'the dialled call failed with the gateway\'s answer');
    t.equal(second.packets(), 0, 'nothing was sent to the second gateway');
    await call.hangup();
  });
}

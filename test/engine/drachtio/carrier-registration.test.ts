// Outbound registration to a carrier on the real drachtio-server: a sipp registrar (support/sipp/carriers/
// registrar.xml) challenges every REGISTER and checks the digest answer with verifyauth; what it received is read
// back from its message log, its verdicts from its log file.
import t from 'tap';
import pino from 'pino';
import { mkdtempSync, rmSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { enginesOrSkip } from '../../helpers/engines.js';
import { srfOnEngines } from './support/bare-srf.js';
import { freePort } from '../../helpers/server-process.js';
import { bounded, until } from '../../helpers/waits.js';
import { startRegistration, type RegistrationState, type RegistrationTarget } from '../../../src/engine/drachtio/carrier-registration.js';
import { PASSWORD, REALM, USER, startRegistrar } from './support/carrier-peers.js';

const log = pino({ level: 'silent' });

const cseqOf = (h: Record<string, string>) => Number.parseInt(h.cseq ?? '', 10);

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(3 * 60_000);
  const { srf, engines } = srfOnEngines(t, bins);
  const scratch = mkdtempSync(path.join(tmpdir(), 'ringbase-carrier-reg-'));
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }));

  const target = (port: number, over: Partial<RegistrationTarget> = {}): RegistrationTarget => ({
    host: '127.0.0.1', port, transport: 'udp', username: USER, password: PASSWORD, realm: REALM,
    contactUser: 'rb-carrier-1', expires: 3600, ...over,
  });

  t.test('registers with digest credentials, refreshes before the granted expiry, unregisters on stop', async (t) => {
    const port = await freePort();
    const registrar = await startRegistrar(scratch, port, 4);
    t.teardown(() => registrar.kill());
    const states: RegistrationState[] = [];
    // Real timers, counted: after stop() none may be left (no refresh can follow).
    const pending = new Set<NodeJS.Timeout>();
    const timers = {
      setTimeout: (fn: () => void, ms: number) => { const h = setTimeout(() => { pending.delete(h); fn(); }, ms); pending.add(h); return h; },
      clearTimeout: (h: unknown) => { pending.delete(h as NodeJS.Timeout); clearTimeout(h as NodeJS.Timeout); },
      now: () => Date.now(),
    };
    const reg = startRegistration(srf, target(port), { log, onState: (s) => states.push(s), backoff: { firstMs: 300, maxMs: 1500 }, timers });
    t.teardown(() => reg.stop());
    t.equal(reg.state().state, 'registering', 'registering at first');

    const before = Date.now();
    await until(() => `registered (states ${JSON.stringify(states)}; sipp ${registrar.output().slice(-800)})`, 10_000, () => reg.state().state === 'registered');
    const first = reg.state();
    t.ok(first.expiresAt! > before + 3_000 && first.expiresAt! <= Date.now() + 4_000, `expiry is the 4 s the registrar granted, not the 3600 asked (${first.expiresAt! - Date.now()} ms left)`);
    t.equal(first.lastStatus, 200);

    // Two refreshes: three verified REGISTERs in all.
    await until(() => `3 verified REGISTERs (verdicts ${registrar.verdicts().join(',')})`, 15_000, () => registrar.verdicts().length >= 3);
    t.same(registrar.verdicts().slice(0, 3), ['ok', 'ok', 'ok'], 'sipp verified the digest answer of each REGISTER');
    const authorized = registrar.registers().filter((r) => r.headers.authorization);
    t.ok(authorized.length >= 3, `${authorized.length} answered challenges`);
    const h = authorized[0]!.headers;
    t.match(h.from, new RegExp(`^<sip:${USER}@127\\.0\\.0\\.1>;tag=`), 'From is the account at the registrar');
    t.match(h.to, new RegExp(`^<sip:${USER}@127\\.0\\.0\\.1>`), 'To is the account at the registrar');
    t.equal(h.contact, `<sip:rb-carrier-1@127.0.0.1:${engines().drachtio.sipPort}>;expires=3600`, "Contact: our user at drachtio's own SIP address");
    t.equal(h.expires, '3600', 'asks for the configured expiry');
    t.match(h.authorization, new RegExp(`username="${USER}".*realm="${REALM}"`), 'digest for the account and realm');
    t.notMatch(JSON.stringify(registrar.registers()), PASSWORD, 'the password never crosses the wire');
    const all = registrar.registers();
    t.equal(new Set(all.map((r) => r.headers['call-id'])).size, 1, 'one Call-ID across refreshes');
    t.ok(all.every((r, i) => i === 0 || cseqOf(r.headers) > cseqOf(all[i - 1]!.headers)), `CSeq rises: ${all.map((r) => cseqOf(r.headers)).join(',')}`);
    for (let i = 1; i < 3; i++) {
      const gap = authorized[i]!.at - authorized[i - 1]!.at;
      t.ok(gap > 1_000 && gap < 4_000, `refresh ${i} came ${gap} ms after the last success: before the 4 s expiry, near half of it`);
    }
    t.notOk(states.some((s) => s.state === 'failed'), 'never failed');

    const sentBefore = registrar.registers().length;
    const stopStarted = Date.now();
    await bounded('stop()', 8_000, reg.stop());
    t.ok(Date.now() - stopStarted < 6_000, `stop() took ${Date.now() - stopStarted} ms`);
    const unregister = registrar.registers().slice(sentBefore).filter((r) => r.headers.authorization);
    t.equal(unregister.length, 1, 'one (challenged) un-REGISTER');
    t.equal(unregister[0]?.headers.expires, '0', 'Expires: 0');
    t.match(unregister[0]?.headers.contact ?? '', /;expires=0$/, 'its Contact expires=0');
    t.equal(unregister[0]?.headers['call-id'], all[0]!.headers['call-id'], 'in the same registration (Call-ID)');
    t.equal(registrar.verdicts().at(-1), 'ok', 'verified as well');
    t.equal(pending.size, 0, 'no timer left: no refresh after stop');
    t.same(reg.state(), { state: 'failed', lastError: 'stopped' }, 'no longer registered');
  });

  t.test('a wrong password fails (403) and is retried with backoff', async (t) => {
    const port = await freePort();
    const registrar = await startRegistrar(scratch, port, 4);
    t.teardown(() => registrar.kill());
    const states: RegistrationState[] = [];
    const reg = startRegistration(srf, target(port, { password: 'wrong' }), { log, onState: (s) => states.push(s), backoff: { firstMs: 200, maxMs: 1000 } });
    t.teardown(() => reg.stop());
    await until(() => `two failures (${JSON.stringify(states)})`, 10_000, () => states.filter((s) => s.state === 'failed').length >= 2);
    const failed = states.filter((s) => s.state === 'failed');
    t.equal(failed[0]!.lastStatus, 403, 'the registrar refused the credentials');
    t.ok(failed[1]!.retryInMs! > failed[0]!.retryInMs!, `backs off: ${failed.map((s) => s.retryInMs).join(', ')} ms`);
    t.ok(registrar.verdicts().includes('bad'), 'sipp found the digest answer wrong');
    t.notOk(states.some((s) => s.state === 'registered'), 'never registered');
  });

  t.test('a registrar that never answers: each REGISTER ends at our own bound, not at timer F', async (t) => {
    // A bound socket that swallows everything: no port-unreachable, so sofia would wait 32 s.
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', () => resolve()));
    t.teardown(() => silent.close());
    let seen = 0;
    silent.on('message', () => { seen++; });
    const states: Array<RegistrationState & { t: number }> = [];
    const started = Date.now();
    const reg = startRegistration(srf, target(silent.address().port), { log, onState: (s) => states.push({ ...s, t: Date.now() }), backoff: { firstMs: 200, maxMs: 400 }, transactionTimeoutMs: 700 });
    t.teardown(() => reg.stop());
    await until(() => `two failures (${JSON.stringify(states)})`, 10_000, () => states.filter((s) => s.state === 'failed').length >= 2);
    const [first] = states.filter((s) => s.state === 'failed');
    t.equal(first!.lastError, 'no final response within 700 ms', 'failed for want of an answer');
    t.equal(first!.lastStatus, undefined, 'no status');
    t.ok(first!.t - started >= 690 && first!.t - started < 5_000, `after ${first!.t - started} ms (bound 700 ms)`);
    t.ok(seen >= 2, `the REGISTERs did go out (${seen} received, retransmissions included)`);
  });

  t.test('a registrar that goes away: failed, retries back off, registers again once the registrar is back', async (t) => {
    const port = await freePort();
    let registrar = await startRegistrar(scratch, port, 4);
    t.teardown(() => registrar.kill());
    const states: Array<RegistrationState & { t: number }> = [];
    const backoff = { firstMs: 300, maxMs: 1200 };
    const reg = startRegistration(srf, target(port), { log, onState: (s) => states.push({ ...s, t: Date.now() }), backoff, transactionTimeoutMs: 1_000 });
    t.teardown(() => reg.stop());
    await until('registered', 10_000, () => reg.state().state === 'registered');

    await registrar.kill();
    await until(() => `three failures (${JSON.stringify(states)})`, 20_000, () => states.filter((s) => s.state === 'failed').length >= 3);
    const failed = states.filter((s) => s.state === 'failed');
    t.ok(failed.every((s) => s.lastError), `each says why: ${failed.map((s) => s.lastError + (s.lastStatus ? ` (${s.lastStatus})` : '')).join('; ')}`);
    const waits = failed.map((s) => s.retryInMs!);
    t.ok(waits[0]! <= backoff.firstMs && waits[0]! >= backoff.firstMs * 0.9, `first retry after about firstMs: ${waits[0]}`);
    t.ok(waits[1]! > waits[0]! && waits[2]! > waits[1]!, `retries back off: ${waits.slice(0, 3).join(', ')} ms`);
    t.ok(waits.every((w) => w <= backoff.maxMs), 'never beyond maxMs');
    // The gaps between failures follow the waits (each attempt ends within its 1 s bound).
    for (let i = 1; i < 3; i++) {
      const gap = failed[i]!.t - failed[i - 1]!.t;
      t.ok(gap >= waits[i - 1]! - 50, `attempt ${i + 1} came ${gap} ms after failure ${i} (wait ${waits[i - 1]} ms)`);
    }

    registrar = await startRegistrar(scratch, port, 4);
    const back = Date.now();
    await until(() => `registered again (${JSON.stringify(states.slice(-3))})`, 15_000, () => reg.state().state === 'registered');
    const took = Date.now() - back;
    // The longest wait is maxMs, then one attempt (1 s bound); the rest is slack for a busy machine.
    t.ok(took <= backoff.maxMs + 1_000 + 1_500, `registered again ${took} ms after the registrar came back`);
    t.equal(registrar.verdicts()[0], 'ok', 'with verified credentials');
  });
}

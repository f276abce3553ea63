// Carrier gateway health on the real drachtio-server: OPTIONS pings to a sipp that answers them
// (support/sipp/carriers/options.xml), killed and started again on the same port, beside a gateway where nothing
// listens. The bounds are the module's promise: down within two intervals of the gateway dying, up again within
// two of it coming back.
import t from 'tap';
import pino from 'pino';
import { createSocket, type Socket } from 'node:dgram';
import { enginesOrSkip } from '../../helpers/engines.js';
import { srfOnEngines } from './support/bare-srf.js';
import { freePort } from '../../helpers/server-process.js';
import { until } from '../../helpers/waits.js';
import { startGatewayHealth } from '../../../src/engine/drachtio/gateway-health.js';
import { startOptionsResponder } from './support/carrier-peers.js';

const INTERVAL_MS = 1_000;
/** Timers on a busy 2-core machine fire late: slack on top of the two intervals promised. */
const SLACK_MS = 750;
const log = pino({ level: 'silent' });

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(2 * 60_000);
  const { srf } = srfOnEngines(t, bins);

  t.test('a gateway that stops answering is down within two intervals and up again within two of its return', async (t) => {
    const [livePort, deadPort] = [await freePort(), await freePort()];
    let gateway = await startOptionsResponder(livePort);
    t.teardown(() => gateway.kill());
    const changes: Array<{ key: string; up: boolean; at: number }> = [];
    const health = startGatewayHealth(srf, { intervalMs: INTERVAL_MS, log, onChange: (key, up) => changes.push({ key, up, at: Date.now() }) });
    t.teardown(() => health.stop());
    health.set([
      { key: 'live', host: '127.0.0.1', port: livePort, transport: 'udp' },
      { key: 'dead', host: '127.0.0.1', port: deadPort, transport: 'udp' },
    ]);
    t.ok(health.isUp('live') && health.isUp('dead'), 'new gateways start up');
    t.ok(health.isUp('never-set'), 'unknown keys are up');

    const started = Date.now();
    await until('the dead gateway down', 2 * INTERVAL_MS + SLACK_MS, () => !health.isUp('dead'));
    t.pass(`the gateway where nothing listens is down after ${Date.now() - started} ms`);
    await until('the live gateway answered', 2 * INTERVAL_MS + SLACK_MS, () => health.states().find((s) => s.key === 'live')?.lastStatus === 200);
    const live = health.states().find((s) => s.key === 'live')!;
    t.ok(live.up && live.rttMs !== null && live.rttMs >= 0 && live.lastPingAt !== null, `the live one is up (rtt ${live.rttMs} ms)`);
    const dead = health.states().find((s) => s.key === 'dead')!;
    // Nothing bound there: the kernel's port-unreachable makes sofia fail the ping at once, a 503.
    t.same([dead.up, dead.lastStatus, dead.rttMs], [false, 503, null], 'the dead one: 503 from drachtio, no rtt');

    await gateway.kill();
    const killed = Date.now();
    await until('the killed gateway down', 2 * INTERVAL_MS + SLACK_MS, () => !health.isUp('live'));
    const downAfter = Date.now() - killed;
    t.ok(downAfter <= 2 * INTERVAL_MS + SLACK_MS, `down ${downAfter} ms after it was killed (interval ${INTERVAL_MS} ms)`);
    t.notOk(health.isUp('dead'), 'the other stays down');

    gateway = await startOptionsResponder(livePort);
    const back = Date.now();
    await until('the gateway up again', 2 * INTERVAL_MS + SLACK_MS, () => health.isUp('live'));
    const upAfter = Date.now() - back;
    t.ok(upAfter <= 2 * INTERVAL_MS + SLACK_MS, `up ${upAfter} ms after it came back`);

    t.same(changes.filter((c) => c.key === 'live').map((c) => c.up), [false, true], `onChange for the live gateway: down, up (${JSON.stringify(changes.map((c) => ({ ...c, at: c.at - started })))}, killed +${killed - started}, back +${back - started})`);
    t.same(changes.filter((c) => c.key === 'dead').map((c) => c.up), [false], 'onChange for the dead one: down, once');

    // Replacing the set: the dead gateway is no longer pinged nor known, the live one keeps its state.
    health.set([{ key: 'live', host: '127.0.0.1', port: livePort, transport: 'udp' }]);
    t.same(health.states().map((s) => s.key), ['live'], 'only the gateways set are pinged');
    t.ok(health.isUp('dead'), 'a gateway no longer set is unknown, so up');
    t.ok(health.isUp('live'), 'the one kept is still up');
    health.stop();
    t.same(health.states(), [], 'nothing pinged after stop');
  });

  t.test('pings of different gateways do not wait for each other', async (t) => {
    // Five gateways that swallow every ping (a bound socket that never answers: no port-unreachable either, so each
    // ping waits out its bound) and one that answers: the answering one is pinged on its own schedule, its pings
    // never queued behind the others' timeouts.
    const port = await freePort();
    const gateway = await startOptionsResponder(port);
    t.teardown(() => gateway.kill());
    const sockets = await Promise.all([1, 2, 3, 4, 5].map(() => new Promise<Socket>((resolve) => {
      const s = createSocket('udp4');
      s.bind(0, '127.0.0.1', () => resolve(s));
    })));
    t.teardown(() => { for (const s of sockets) s.close(); });
    const swallowed = sockets.map(() => 0);
    sockets.forEach((s, i) => s.on('message', () => { swallowed[i]!++; }));
    const silent = sockets.map((s, i) => ({ key: `silent-${i}`, host: '127.0.0.1', port: s.address().port, transport: 'udp' as const }));
    const downAt = new Map<string, number>();
    const health = startGatewayHealth(srf, { intervalMs: INTERVAL_MS, log, onChange: (key, up) => { if (!up) downAt.set(key, Date.now()); } });
    t.teardown(() => health.stop());
    const setAt = Date.now();
    health.set([...silent, { key: 'answers', host: '127.0.0.1', port, transport: 'udp' }]);
    const answered: number[] = [];
    await until('three answered pings', 4 * INTERVAL_MS + SLACK_MS, () => {
      const s = health.states().find((x) => x.key === 'answers')!;
      if (s.lastPingAt !== null && answered.at(-1) !== s.lastPingAt) answered.push(s.lastPingAt);
      return answered.length >= 3;
    });
    const gaps = answered.slice(1).map((a, i) => a - answered[i]!);
    t.ok(gaps.every((g) => g < INTERVAL_MS + SLACK_MS), `one ping an interval, never held up by the silent ones' timeouts: gaps ${gaps.join(', ')} ms`);
    const downAfter = silent.map((g) => (downAt.get(g.key) ?? Infinity) - setAt);
    t.ok(downAfter.every((ms) => ms <= 2 * INTERVAL_MS + SLACK_MS), `the silent ones went down (their first ping timed out) after ${downAfter.join(', ')} ms`);
    t.ok(silent.every((g) => !health.isUp(g.key)), 'the silent ones are down');
    t.ok(health.states().filter((x) => x.key.startsWith('silent')).every((x) => x.lastStatus === null && x.rttMs === null), 'unanswered: no status (our bound ended each ping)');
    t.ok(swallowed.every((n) => n >= 2), `the silent ones were pinged too (${swallowed.join(', ')} messages, retransmissions included)`);
    t.ok(health.isUp('answers'), 'the answering one is up');
  });
}

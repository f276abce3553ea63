// The engine connection against stand-ins for the engines (no binaries needed): a FreeSWITCH event socket that
// is up before its SIP profile (as during a FreeSWITCH start), and a drachtio-server that is down when the
// engine stops, and losing a connection (reported to onLost, which ends the calls on it). The restarts
// themselves, on the real engines, are in reconnect.test.ts and restart-mid-call.test.ts.
import t from 'tap';
import { createServer, type Server, type Socket } from 'node:net';
import { pino } from 'pino';
import { EngineConnection } from '../../../src/engine/drachtio/connection.js';
import { freePort } from '../../helpers/server-process.js';

const PROFILE_LINE = 'drachtio_mrf\tprofile\tsip:mod_sofia@127.0.0.1:5080\tRUNNING (0)\n';

async function until(what: string, ms: number, cond: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function listen(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** An event socket that accepts any password and command; `sofia status` answers what `status()` says. */
async function fakeEventSocket(t: { teardown(fn: () => unknown): void }, status: () => string, probes: { answer: boolean } = { answer: true }) {
  const sockets = new Set<Socket>();
  const seen = { sofiaStatus: 0 };
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    s.write('Content-Type: auth/request\n\n');
    let buf = '';
    let held = 0;
    const answerApi = (command: string) => {
      const body = command === 'api sofia status' ? status() : command === 'api status' ? '0 session(s) - peak 0, last 5min 0 \n' : '+OK\n';
      s.write(`Content-Type: api/response\nContent-Length: ${Buffer.byteLength(body)}\n\n${body}`);
    };
    s.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
        const command = buf.slice(0, end).trim();
        buf = buf.slice(end + 2);
        // A server too busy to answer its probes answers them late, in order, once it answers again.
        if (command === 'api status' && !probes.answer) { held++; continue; }
        for (; held > 0 && probes.answer; held--) answerApi('api status');
        if (command.startsWith('api ')) {
          if (command === 'api sofia status') seen.sofiaStatus++;
          answerApi(command);
        } else if (command === 'exit') {
          s.end();
        } else {
          s.write('Content-Type: command/reply\nReply-Text: +OK accepted\n\n');
        }
      }
    });
  });
  const port = await listen(server);
  t.teardown(() => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }));
  /** FreeSWITCH going away: every event-socket connection closes. */
  const drop = () => { for (const s of sockets) s.destroy(); };
  return { port, seen, drop };
}

function connection(drachtioPort: number, eslPort: number) {
  return new EngineConnection({
    drachtio: { host: '127.0.0.1', port: drachtioPort, secret: 'unused' },
    freeswitch: [{ host: '127.0.0.1', port: eslPort, password: 'ClueCon' }],
    media: { listenAddress: '127.0.0.1', listenPort: 0, advertisedAddress: null },
  }, pino({ level: 'silent' }));
}

t.test('FreeSWITCH answering before its SIP profile is up: media stays down, is asked again, then connects', async (t) => {
  // fsmrf throws from a socket callback (ending the process) when `sofia status` lacks its profile.
  let profileUp = false;
  const esl = await fakeEventSocket(t, () => (profileUp ? PROFILE_LINE : '-ERR sofia Command not found!\n'));
  const conn = connection(await freePort(), esl.port);
  conn.srf.on('error', () => undefined);
  t.teardown(() => conn.stop());
  const started = conn.start(30_000).catch((err: Error) => err);

  await until('two sofia status probes', 5_000, () => esl.seen.sofiaStatus >= 2);
  t.equal(conn.mediaUp, false, 'media down while the profile is missing');
  t.equal(conn.pickMedia(), null, 'no media server for calls');

  profileUp = true;
  await until('media up once the profile is listed', 5_000, () => conn.mediaUp);
  t.ok(conn.pickMedia(), 'media server available');
  t.equal(conn.sipUp, false, 'drachtio (nothing listening) still down');
  conn.stop();
  t.match(await started, { message: /stopped/ }, 'start() ends when the connection is stopped');
});

t.test('the FreeSWITCH event socket dropping is reported once as a lost media server, then re-dialled', async (t) => {
  const esl = await fakeEventSocket(t, () => PROFILE_LINE);
  const conn = connection(await freePort(), esl.port);
  conn.srf.on('error', () => undefined);
  const lost: string[] = [];
  conn.onLost((server) => lost.push(server.kind));
  t.teardown(() => conn.stop());
  void conn.start(30_000).catch(() => undefined);
  await until('media up', 5_000, () => conn.mediaUp);
  t.same(lost, [], 'nothing lost yet (drachtio, never logged in, is not reported)');

  esl.drop();
  await until('the loss to be reported', 5_000, () => lost.length > 0);
  t.same(lost, ['media'], 'reported as the media server');
  t.equal(conn.pickMedia(), null, 'and no media server is handed out meanwhile');
  await until('media up again', 5_000, () => conn.mediaUp);
  t.same(lost, ['media'], 'reported once');
});

t.test('an engine stopped while drachtio-server is down does not connect when it comes back', async (t) => {
  const drachtioPort = await freePort();
  const esl = await fakeEventSocket(t, () => PROFILE_LINE);
  const conn = connection(drachtioPort, esl.port);
  const lost: string[] = [];
  conn.onLost((server) => lost.push(server.kind));
  let refused = 0;
  conn.srf.on('error', () => { refused++; });
  const started = conn.start(30_000).catch((err: Error) => err);
  await until('drachtio-srf retrying a refused connection', 5_000, () => refused >= 2);
  conn.stop();
  await started;

  // drachtio-server comes back on its port: a stopped engine must not log in again (it would be handed calls).
  let attempts = 0;
  const drachtio = createServer((s) => { attempts++; s.destroy(); });
  await listen(drachtio, drachtioPort);
  t.teardown(() => new Promise<void>((resolve) => drachtio.close(() => resolve())));
  // A negative can only be waited for: drachtio-srf's next retry was due well within this (its delays start at
  // 255 ms and grow 1.7x per attempt; two refusals in, the next is about 740 ms away).
  await new Promise((r) => setTimeout(r, 1_500));
  t.equal(attempts, 0, 'no connection attempt after stop()');
  t.same(lost, [], 'refused connections and stop() lose nothing (no call can have lived on them)');
});

t.test('a media server slow to answer probes gets no new calls while another can take them, and still does when none can', async (t) => {
  const a = { answer: true };
  const b = { answer: true };
  const eslA = await fakeEventSocket(t, () => PROFILE_LINE, a);
  const eslB = await fakeEventSocket(t, () => PROFILE_LINE, b);
  const conn = new EngineConnection({
    drachtio: { host: '127.0.0.1', port: await freePort(), secret: 'unused' },
    freeswitch: [{ host: '127.0.0.1', port: eslA.port, password: 'ClueCon' }, { host: '127.0.0.1', port: eslB.port, password: 'ClueCon' }],
    media: { listenAddress: '127.0.0.1', listenPort: 0, advertisedAddress: null },
  }, pino({ level: 'silent' }));
  conn.srf.on('error', () => undefined);
  t.teardown(() => conn.stop());
  void conn.start(30_000).catch(() => undefined);
  await until('both media servers up', 5_000, () => conn.media.status().every((s) => s.state === 'up'));
  a.answer = false;
  await until('the silent server marked unhealthy', 6_000, () => conn.media.status()[0]!.state === 'unhealthy');
  const placed = new Set<string>();
  for (let i = 0; i < 4; i++) placed.add(conn.media.links.find((l) => l.server === conn.pickMedia())!.name);
  t.same([...placed], [`127.0.0.1:${eslB.port}`], 'new calls go to the server that answers');
  b.answer = false;
  await until('both unhealthy', 6_000, () => conn.media.status().every((s) => s.state === 'unhealthy'));
  t.ok(conn.mediaUp, 'calls are still taken');
  t.ok(conn.pickMedia(), 'on a connected server: a slow probe alone never refuses calls');
  a.answer = true;
  await until('the first server healthy again', 6_000, () => conn.media.status()[0]!.state === 'up');
  t.equal(conn.media.links.find((l) => l.server === conn.pickMedia())!.name, `127.0.0.1:${eslA.port}`, 'and preferred again');
});

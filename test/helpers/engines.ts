// Real drachtio-server + FreeSWITCH for the engine tier: found on the machine (never shipped with the project),
// started on free loopback ports with the project's own configs copied into a temp dir, and torn down by pid.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Test } from 'tap';
import { accessSync, constants, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { selfSignedPems } from '../../src/crypto/self-signed.js';
import { eslApi } from '../../src/engine/drachtio/esl-probe.js';
import { ROOT } from './spawn.js';

export interface EngineBinaries { drachtio: string; freeswitch: string }

export interface RunningEngines {
  /**
   * SIP listeners: udp+tcp on sipPort, ws on wsPort, tls on tlsPort, wss on wssPort; the last two present
   * `tlsCert`, a self-signed certificate for 127.0.0.1 made for this run (PEM: clients trust it with `ca`).
   */
  drachtio: { host: string; port: number; secret: string; sipPort: number; wsPort: number; tlsPort: number; wssPort: number; tlsCert: string };
  freeswitch: { host: string; port: number; password: string; sipPort: number };
  /** Environment for the app (config.ts names) pointing at these engines. */
  env: Record<string, string>;
  dir: string;
  /**
   * Kills and restarts one engine on the same ports (reconnect tests); `whileDown` runs after the kill and before
   * the start, so a test can see what happens while the engine is away.
   */
  restart(which: 'drachtio' | 'freeswitch', whileDown?: () => Promise<void>): Promise<void>;
  logs(): { drachtio: string; freeswitch: string };
  stop(): Promise<void>;
}

export const SKIP_LINE = 'engine tier skipped: drachtio-server/FreeSWITCH not found (set DRACHTIO_BIN and FREESWITCH_BIN)';

function executable(file: string | undefined): string | null {
  if (!file) return null;
  try { accessSync(file, constants.X_OK); return file; } catch { return null; }
}

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const found = dir && executable(path.join(dir, name));
    if (found) return found;
  }
  return null;
}

/** DRACHTIO_BIN / FREESWITCH_BIN, else PATH, else the /opt/engines layout a local build uses. */
export function findEngineBinaries(env: NodeJS.ProcessEnv = process.env): EngineBinaries | null {
  const drachtio = executable(env.DRACHTIO_BIN) ?? onPath('drachtio') ?? executable('/opt/engines/drachtio/bin/drachtio');
  const freeswitch = executable(env.FREESWITCH_BIN) ?? onPath('freeswitch') ?? executable('/opt/engines/freeswitch/bin/freeswitch');
  return drachtio && freeswitch ? { drachtio, freeswitch } : null;
}

let skipPrinted = false;

/** The binaries, or null after recording one skipped test (tap's summary counts it as skipped, never as passed). */
export function enginesOrSkip(t: Pick<Test, 'skip'>): EngineBinaries | null {
  const bins = findEngineBinaries();
  if (bins) return bins;
  if (!skipPrinted) { process.stdout.write(`# ${SKIP_LINE}\n`); skipPrinted = true; }
  t.skip(SKIP_LINE, () => {});
  return null;
}

function waitForPort(port: number, deadline: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => { s.destroy(); resolve(); });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`nothing listening on 127.0.0.1:${port}`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

async function waitForFreeswitch(port: number, password: string, deadline: number, logFile: string): Promise<void> {
  await waitForPort(port, deadline);
  for (;;) {
    const status = await eslApi('127.0.0.1', port, password, 'sofia status').catch((err: Error) => `(no status: ${err.message})`);
    if (/drachtio_mrf\s+profile\s+\S+\s+RUNNING/.test(status)) return;
    if (Date.now() > deadline) {
      // FreeSWITCH logs to its file only (-nc): what it said is there, not on stdout.
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-3000) : '(no log file)';
      throw new Error(`FreeSWITCH not ready: ${status}\nits log:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Proc { child: ChildProcess; log: string; exited: Promise<void> }

/**
 * Children that must not outlive this process, even when it is killed (tap's timeout sends SIGTERM, and then
 * no teardown runs): engine process groups and sipp peers. Killed synchronously on exit and on SIGTERM/SIGINT.
 */
const orphans = new Map<number, boolean>();
let exitHooked = false;

export function killOnExit(child: ChildProcess, group = false): void {
  const pid = child.pid;
  if (pid === undefined) return;
  orphans.set(pid, group);
  child.once('exit', () => orphans.delete(pid));
  if (exitHooked) return;
  exitHooked = true;
  const killAll = () => {
    for (const [p, g] of orphans) { try { process.kill(g ? -p : p, 'SIGKILL'); } catch { /* gone */ } }
    orphans.clear();
  };
  process.on('exit', killAll);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => { killAll(); process.kill(process.pid, signal); });
  }
}

function launch(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Proc {
  // Own process group, so teardown can take any helper children down with it.
  const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc: Proc = { child, log: '', exited: new Promise((r) => child.once('exit', () => r())) };
  killOnExit(child, true);
  const keep = (d: Buffer) => { proc.log = (proc.log + d.toString()).slice(-200_000); };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return proc;
}

async function kill(proc: Proc | undefined): Promise<void> {
  if (!proc || proc.child.exitCode !== null || proc.child.pid === undefined) return;
  const pid = proc.child.pid;
  try { process.kill(-pid, 'SIGTERM'); } catch { /* already gone */ }
  const gone = await Promise.race([proc.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000))]);
  if (!gone) {
    try { process.kill(-pid, 'SIGKILL'); } catch { /* already gone */ }
    await proc.exited;
  }
}

/**
 * A certificate for drachtio's tls and wss listeners, made once per engine start into the run's dir: a real key
 * pair whose certificate names 127.0.0.1, so a client can verify it against this PEM instead of skipping checks.
 */
async function selfSignedCert(dir: string): Promise<{ certFile: string; keyFile: string; cert: string }> {
  const pems = await selfSignedPems('127.0.0.1', 1);
  const certFile = path.join(dir, 'tls.crt');
  const keyFile = path.join(dir, 'tls.key');
  writeFileSync(keyFile, pems.key, { mode: 0o600 });
  writeFileSync(certFile, pems.cert);
  return { certFile, keyFile, cert: pems.cert };
}

const RTP_WINDOW = 2000;
/** The kernel's ephemeral ports start here: bind(0) (test phones, sipp, freePort) never returns a port below it. */
const EPHEMERAL_LOW = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);
/** Ports of the engine suite's dialled parties, chosen at random (engine-suite/real-driver.ts): no RTP window overlaps them. */
export const PARTY_PORTS = { from: 20000, count: 9000 };
/** FreeSWITCH's RTP windows: below the parties' ports (and so below the ephemeral range), RTP_WINDOW ports each. */
const RTP_LOW = 10000;
const rtpSlots = Math.floor((Math.min(PARTY_PORTS.from, EPHEMERAL_LOW) - RTP_LOW) / RTP_WINDOW);
/** The first window at random, then the next ones in turn. */
let rtpSlot = Math.floor(Math.random() * rtpSlots);

/**
 * The engines' own listeners (event socket, SIP, drachtio's admin port) take ports between the parties' and the
 * ephemeral range. A port bind(0) hands out (freePort) can be given, before the engine binds it, to another process
 * as the local port of an outgoing connection, as a busy machine makes many (seen: FreeSWITCH "Could not listen" on
 * its event socket); a port below the ephemeral range never is. Chosen at random, checked free for TCP and UDP, and
 * never handed out twice by one test process.
 */
const SERVICE_PORTS = { from: PARTY_PORTS.from + PARTY_PORTS.count, to: EPHEMERAL_LOW - 1 };
const servicePortsGiven = new Set<number>();

function bindable(port: number): Promise<boolean> {
  const tcp = new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
  const udp = new Promise<boolean>((resolve) => {
    const sock = createSocket('udp4');
    sock.once('error', () => { sock.close(); resolve(false); });
    sock.bind(port, '127.0.0.1', () => sock.close(() => resolve(true)));
  });
  return Promise.all([tcp, udp]).then(([a, b]) => a && b);
}

async function servicePort(): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const port = SERVICE_PORTS.from + Math.floor(Math.random() * (SERVICE_PORTS.to - SERVICE_PORTS.from + 1));
    if (servicePortsGiven.has(port)) continue;
    servicePortsGiven.add(port);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${SERVICE_PORTS.from} and ${SERVICE_PORTS.to}`);
}

/**
 * An RTP window for the next FreeSWITCH, outside the ports tests take. Inside the ephemeral range, a port a test
 * phone or sipp had just been given by bind(0) could be the one FreeSWITCH was about to bind (seen: a supervisor's
 * sipp refused its SIP port, a dialled leg left without media); inside the parties' range, a party's port. Media
 * servers of one test process get windows of their own, and concurrent runs on one machine start at random ones.
 */
function rtpWindow(): [number, number] {
  if (rtpSlots < 1) throw new Error(`no room for an RTP window below port ${Math.min(PARTY_PORTS.from, EPHEMERAL_LOW)}`);
  const start = RTP_LOW + RTP_WINDOW * (rtpSlot++ % rtpSlots);
  return [start, start + RTP_WINDOW - 1];
}

/** A FreeSWITCH with the project's config under `dir`, on free loopback ports (started by `start()`, any number of times). */
async function freeswitchLauncher(bin: string, dir: string, opts: { sessionsPerSecond?: number }) {
  const conf = path.join(dir, 'freeswitch');
  cpSync(path.join(ROOT, 'freeswitch'), conf, { recursive: true });
  for (const sub of ['log', 'db', 'run', 'cache']) mkdirSync(path.join(dir, sub), { recursive: true });
  const eslPort = await servicePort();
  const sipPort = await servicePort();
  const password = 'esl-' + Math.random().toString(36).slice(2);
  const [rtpStart, rtpEnd] = rtpWindow();
  const env = {
    ...process.env,
    FS_SIP_IP: '127.0.0.1', FS_SIP_PORT: String(sipPort), FS_RTP_IP: '127.0.0.1', FS_EXT_RTP_IP: '127.0.0.1',
    FS_RTP_START_PORT: String(rtpStart), FS_RTP_END_PORT: String(rtpEnd),
    FS_ESL_IP: '127.0.0.1', FS_ESL_PORT: String(eslPort), FS_ESL_PASSWORD: password,
    FS_SESSIONS_PER_SECOND: String(opts.sessionsPerSecond ?? 200),
    // Media goes to loopback candidates only, whatever other interfaces a browser seat reports.
    FS_WEBRTC_CANDIDATE_ACL: 'loopback.auto', FS_WEBRTC_PUBLIC_CANDIDATE_ACL: 'loopback.auto',
  };
  return {
    address: { host: '127.0.0.1', port: eslPort, password, sipPort },
    start: () => launch(bin, [
      '-nonat', '-nf', '-nc', '-conf', conf, '-log', path.join(dir, 'log'), '-db', path.join(dir, 'db'),
      '-run', path.join(dir, 'run'), '-temp', dir,
    ], env, dir),
    ready: (deadline: number) => waitForFreeswitch(eslPort, password, deadline, path.join(dir, 'log', 'freeswitch.log')),
  };
}

/** One more FreeSWITCH beside a running pair (tests of several media servers); `kill()` is a crash. */
export interface ExtraMediaServer {
  address: { host: string; port: number; password: string; sipPort: number };
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export async function startExtraMediaServer(bins: EngineBinaries, opts: { sessionsPerSecond?: number } = {}): Promise<ExtraMediaServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ringbase-media-'));
  const fs = await freeswitchLauncher(bins.freeswitch, dir, opts);
  const proc = fs.start();
  const stop = async () => {
    await kill(proc);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await fs.ready(Date.now() + 20_000);
  } catch (err) {
    await stop();
    throw new Error(`FreeSWITCH did not start: ${(err as Error).message}\n${proc.log.slice(-4000)}`);
  }
  return {
    address: fs.address,
    async kill() {
      if (proc.child.pid !== undefined) try { process.kill(-proc.child.pid, 'SIGKILL'); } catch { /* gone */ }
      await proc.exited;
    },
    stop,
  };
}

export async function startEngines(bins: EngineBinaries, opts: { sessionsPerSecond?: number } = {}): Promise<RunningEngines> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ringbase-engines-'));
  cpSync(path.join(ROOT, 'drachtio', 'drachtio.conf.xml'), path.join(dir, 'drachtio.conf.xml'));
  const fs = await freeswitchLauncher(bins.freeswitch, dir, opts);
  const { port: eslPort, password: eslPassword, sipPort: fsSipPort } = fs.address;

  const [adminPort, sipPort, wsPort, tlsPort, wssPort] = [await servicePort(), await servicePort(), await servicePort(), await servicePort(), await servicePort()];
  const tls = await selfSignedCert(dir);
  const secret = 'test-' + Math.random().toString(36).slice(2);
  writeFileSync(path.join(dir, 'README'), 'Temporary engines for a Ringbase test run; removed at teardown.\n');

  const startDrachtio = () => launch(bins.drachtio, [
    '-f', path.join(dir, 'drachtio.conf.xml'), '--address', '127.0.0.1', '--port', String(adminPort), '--secret', secret,
    '--contact', `sip:127.0.0.1:${sipPort};transport=udp,tcp`, '--contact', `sip:127.0.0.1:${wsPort};transport=ws`,
    // sips: for both, or sofia-sip binds neither (its sip: scheme knows udp, tcp, sctp and ws only).
    '--contact', `sips:127.0.0.1:${tlsPort};transport=tls`, '--contact', `sips:127.0.0.1:${wssPort};transport=wss`,
    // The chain file is required: sofia-sip loads it as its CA list and without one refuses the tls listener.
    // A self-signed certificate is its own chain.
    '--key-file', tls.keyFile, '--cert-file', tls.certFile, '--chain-file', tls.certFile,
  ], process.env, dir);

  const procs: { drachtio?: Proc; freeswitch?: Proc } = {};
  const up = async (which: 'drachtio' | 'freeswitch') => {
    const deadline = Date.now() + 20_000;
    if (which === 'drachtio') {
      procs.drachtio = startDrachtio();
      // The TLS listeners too: drachtio exits when one cannot be set up (bad certificate files), silently at its
      // log level here, and maybe only after the admin port has answered.
      await Promise.all([adminPort, tlsPort, wssPort].map((p) => waitForPort(p, deadline)));
    } else {
      procs.freeswitch = fs.start();
      await fs.ready(deadline);
    }
  };
  const stop = async () => {
    await Promise.all([kill(procs.drachtio), kill(procs.freeswitch)]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all([up('drachtio'), up('freeswitch')]);
  } catch (err) {
    const logs = `drachtio:\n${procs.drachtio?.log ?? ''}\nfreeswitch:\n${procs.freeswitch?.log ?? ''}`;
    await stop();
    throw new Error(`engines did not start: ${(err as Error).message}\n${logs.slice(-4000)}`);
  }
  return {
    dir,
    drachtio: { host: '127.0.0.1', port: adminPort, secret, sipPort, wsPort, tlsPort, wssPort, tlsCert: tls.cert },
    freeswitch: { host: '127.0.0.1', port: eslPort, password: eslPassword, sipPort: fsSipPort },
    env: {
      RINGBASE_ENGINE: 'drachtio',
      DRACHTIO_HOST: '127.0.0.1', DRACHTIO_PORT: String(adminPort), DRACHTIO_SECRET: secret,
      FREESWITCH_HOST: '127.0.0.1', FREESWITCH_PORT: String(eslPort), FREESWITCH_PASSWORD: eslPassword,
      RINGBASE_SIP_UDP_PORT: String(sipPort), RINGBASE_SIP_TCP_PORT: String(sipPort), RINGBASE_SIP_TLS_PORT: String(tlsPort),
      RINGBASE_SIP_WSS_PORT: String(wssPort),
      RINGBASE_MEDIA_LISTEN_ADDRESS: '127.0.0.1',
    },
    async restart(which, whileDown) {
      await kill(procs[which]);
      if (whileDown) await whileDown();
      await up(which);
    },
    logs: () => ({ drachtio: procs.drachtio?.log ?? '', freeswitch: procs.freeswitch?.log ?? '' }),
    stop,
  };
}

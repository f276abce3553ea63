// Carrier peers for tests, each a sipp on 127.0.0.1: a registrar (sipp/carriers/registrar.xml) that challenges every
// REGISTER, checks the digest answer with verifyauth and grants a short expiry (what it received is read back from its
// message log, its verdicts from its log file); a gateway that answers OPTIONS (sipp/carriers/options.xml).
import { spawn, execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killOnExit } from '../../../helpers/engines.js';
import { until } from '../../../helpers/waits.js';

const SCENARIOS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sipp', 'carriers');
export const REALM = 'carrier.test';
export const USER = 'ringbase-trunk';
export const PASSWORD = 'carrier-secret-1';

export interface Registrar {
  kill(): Promise<void>;
  output(): string;
  /** REGISTERs sipp received, in order, with the wall-clock time it logged for each. */
  registers(): Array<{ at: number; headers: Record<string, string> }>;
  /** verifyauth verdicts, in order: 'ok' or 'bad'. */
  verdicts(): string[];
}

/** The registrar on 127.0.0.1:port (UDP), granting `grantS` seconds; killed by the test or within 120 s. */
export async function startRegistrar(scratch: string, port: number, grantS: number): Promise<Registrar> {
  const tag = `${port}-${Date.now()}`;
  const file = path.join(scratch, `registrar-${tag}.xml`);
  const keys: Record<string, string> = { realm: REALM, auth_user: USER, auth_pass: PASSWORD, grant_s: String(grantS), wait_ms: '120000' };
  writeFileSync(file, Object.entries(keys).reduce((xml, [k, v]) => xml.replaceAll(`[${k}]`, v), readFileSync(path.join(SCENARIOS, 'registrar.xml'), 'utf8')));
  const messages = path.join(scratch, `registrar-${tag}.msg`);
  const logs = path.join(scratch, `registrar-${tag}.log`);
  // No -m: a registration that starts afresh (new Call-ID, after a failure) is a new call of the same sipp.
  const sipp = await listeningSipp(port, ['-sf', file, '-trace_msg', '-message_file', messages, '-trace_logs', '-log_file', logs], scratch);
  return {
    ...sipp,
    registers: () => received(messages),
    verdicts: () => (existsSync(logs) ? [...readFileSync(logs, 'utf8').matchAll(/auth-(ok|bad)/g)].map((m) => m[1]!) : []),
  };
}

export function udpListening(port: number): Promise<boolean> {
  return new Promise((resolve) => execFile('ss', ['-Hlun', `sport = :${port}`], (err, out) => resolve(!err && out.trim() !== '')));
}

/**
 * Requests in sipp's message log: each message follows a line of dashes and sipp's local time
 * ("2026-11-28 04:27:11.669342"), then "UDP message received [313] bytes :" and a blank line.
 */
function received(file: string): Array<{ at: number; headers: Record<string, string> }> {
  if (!existsSync(file)) return [];
  const out: Array<{ at: number; headers: Record<string, string> }> = [];
  for (const block of readFileSync(file, 'utf8').split(/^-{10,} /m)) {
    const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}\.\d{3})\d*\n[^\n]*message received[^\n]*\n\s*REGISTER [^\n]*\n([\s\S]*?)\n\s*\n/.exec(block);
    if (!m) continue;
    const headers: Record<string, string> = {};
    for (const line of m[3]!.split('\n')) {
      const h = /^\s*([\w-]+)\s*:\s*(.*?)\s*$/.exec(line);
      if (h) headers[h[1]!.toLowerCase()] = h[2]!;
    }
    out.push({ at: new Date(`${m[1]}T${m[2]}`).getTime(), headers });
  }
  return out;
}


/** A sipp on 127.0.0.1:port (UDP) running `args`, once it listens; killed by the test or within 120 s. */
async function listeningSipp(port: number, args: string[], cwd?: string): Promise<{ kill(): Promise<void>; output(): string }> {
  const child = spawn(process.env.SIPP_BIN ?? 'sipp', [...args, '-i', '127.0.0.1', '-p', String(port), '-nd', '-nostdin', '-timeout', '120s'],
    { stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
  killOnExit(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-20_000); });
  child.stderr.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-20_000); });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  await until(() => `sipp listening on udp ${port}: ${out.slice(-500)}`, 10_000, () => {
    if (child.exitCode !== null) throw new Error(`sipp exited: ${out.slice(-800)}`);
    return udpListening(port);
  }, 25);
  return { async kill() { if (child.exitCode === null) child.kill('SIGKILL'); await exited; }, output: () => out };
}

/** A gateway answering OPTIONS on 127.0.0.1:port (UDP) until killed, or for 120 s. */
export function startOptionsResponder(port: number): Promise<{ kill(): Promise<void> }> {
  return listeningSipp(port, ['-sf', path.join(SCENARIOS, 'options.xml')]);
}

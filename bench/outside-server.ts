// The server as users start it, for bench/api.ts's rows measured from outside: `npm start`'s program in a process of its own
// (built if its sources changed, logs as shipped: JSON lines, here to a file, as `npm start > ringbase.log` writes
// them), an account, a key and 20 trunks made through the CLI and the API; and beside it a bare fastify
// hello-world in a process of its own. On the store the environment names (a temp SQLite dir, or PostgreSQL).
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** `npm start` compiles first when a source changed since the last build. */
const START_LIMIT_MS = 180_000;

/** Resolves with the first match of `pattern` in the file `file`; rejects when `child` exits first or after `ms`. */
async function awaitLine(child: ChildProcess, file: string, pattern: RegExp, ms: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const m = pattern.exec(existsSync(file) ? readFileSync(file, 'utf8') : '');
    if (m) return m;
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}`);
    if (Date.now() > deadline) throw new Error(`no line matching ${pattern} within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(killer);
  };
}

export interface OutsideServer { base: string; headers: Record<string, string>; trunkId: number; stop(): Promise<void> }

export async function startAsUsersDo(): Promise<OutsideServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ringbase-bench-outside-'));
  const env = { ...process.env, RINGBASE_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' };
  // What `npm start` runs, without npm in between (which would have to pass the stop signal on).
  const log = path.join(dataDir, 'ringbase.log');
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'start.mjs')], { cwd: ROOT, env, stdio: ['ignore', openSync(log, 'w'), 'inherit'] });
  const stopServer = stopper(child);
  const stop = async () => { await stopServer(); rmSync(dataDir, { recursive: true, force: true }); };
  try {
    const [, base] = await awaitLine(child, log, /Ringbase ready: dashboard (http:\/\/[^/\s]+)/, START_LIMIT_MS);
    const cli = async (...args: string[]) => JSON.parse((await promisify(execFile)(path.join(ROOT, 'bin', 'ringbase'), ['--json', ...args], { cwd: ROOT, env })).stdout) as Record<string, unknown>;
    const account = await cli('account', 'create', '--name', 'Bench outside', '--trunking', '--trunk-capacity', '50');
    const { key } = await cli('key', 'create', '--account', String(account.id));
    const headers = { authorization: `Bearer ${String(key)}`, accept: 'application/json' };
    let trunkId = 0;
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${base!}/api/partner/trunks`, {
        method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ transport: 'wss', label: `seat ${i}` }),
      });
      if (res.status !== 201) throw new Error(`creating a trunk answered ${res.status}: ${await res.text()}`);
      trunkId ||= ((await res.json()) as { id: number }).id;
    }
    return { base: base!, headers, trunkId, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export async function startHelloWorld(): Promise<{ url: string; stop(): Promise<void> }> {
  const program = `const app = require('fastify')(); app.get('/', async () => ({ hello: 'world' }));
    app.listen({ port: 0, host: '127.0.0.1' }).then((address) => console.log('listening ' + address));`;
  const dir = mkdtempSync(path.join(tmpdir(), 'ringbase-bench-hello-'));
  const out = path.join(dir, 'out');
  const child = spawn(process.execPath, ['-e', program], { cwd: ROOT, stdio: ['ignore', openSync(out, 'w'), 'inherit'] });
  const stopChild = stopper(child);
  const stop = async () => { await stopChild(); rmSync(dir, { recursive: true, force: true }); };
  try {
    const [, url] = await awaitLine(child, out, /listening (http:\/\/\S+)/, 30_000);
    return { url: `${url!}/`, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

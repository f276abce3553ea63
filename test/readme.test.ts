// The README followed by a newcomer, verbatim, in a fresh clone of the committed tree: `npm install`, the server
// as the README starts it (on 127.0.0.1:8080, its data in the clone's ./data), then every command of its shell
// blocks in order, each expected to exit 0 and to print what the README says it does. The commands are read from
// README.md, so the test follows the README as it changes. Departures from typing them, all mechanical:
//  - a line marked "terminal 1" (a server) or "terminal 2" (the webhook app) runs in the background and is waited
//    for (the server's "Ringbase ready:" line, the app's port); a new "terminal 1" line replaces the server before;
//  - `KEY=sk_live_...` takes the key the command before it printed, as a person would paste it;
//  - `npm test` is not run from inside the tests (it would run this file again); CI runs it.
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, cleanEnv, run } from './helpers/spawn.js';
import { until } from './helpers/waits.js';

t.setTimeout(15 * 60_000);

/** The README's ```sh blocks as commands: continuation lines joined, comments kept apart. */
function readmeCommands(): Array<{ command: string; comment: string }> {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const out: Array<{ command: string; comment: string }> = [];
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = block[1]!.replace(/\\\n\s*/g, '');
    for (const line of joined.split('\n')) {
      if (!line.trim()) continue;
      const at = line.search(/\s#\s/);
      out.push(at < 0 ? { command: line.trim(), comment: '' } : { command: line.slice(0, at).trim(), comment: line.slice(at).replace(/^\s*#\s*/, '') });
    }
  }
  return out;
}

const listening = (port: number) => new Promise<boolean>((resolve) => {
  const socket = createConnection({ host: '127.0.0.1', port }, () => { socket.destroy(); resolve(true); });
  socket.on('error', () => resolve(false));
});

interface Background { child: ChildProcess; output: () => string }

t.test('the README, command by command, in a fresh clone', async (t) => {
  for (const port of [8080, 3000]) {
    if (await listening(port)) return t.skip(`port ${port} is in use here, and the README's commands name it`, () => {});
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'ringbase-readme-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const clone = path.join(dir, 'ringbase');
  const cloned = await run('git', ['clone', '-q', ROOT, clone], { timeoutMs: 60_000 });
  t.equal(cloned.code, 0, `git clone ${cloned.stderr}`);
  const env = cleanEnv();
  const sh = (command: string, extra: Record<string, string> = {}, timeoutMs = 240_000) =>
    run('bash', ['-c', command], { cwd: clone, env: { ...env, ...extra }, timeoutMs });

  const running = new Set<Background>();
  const background = (command: string): Background => {
    const child = spawn('bash', ['-c', command], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => { output += d; });
    child.stderr!.on('data', (d) => { output += d; });
    const bg = { child, output: () => output };
    running.add(bg);
    return bg;
  };
  const stop = async (bg: Background) => {
    running.delete(bg);
    if (bg.child.exitCode !== null) return;
    const exited = new Promise((r) => bg.child.once('exit', r));
    try { process.kill(-bg.child.pid!, 'SIGTERM'); } catch { /* gone */ }
    await exited;
  };
  t.teardown(async () => { for (const bg of [...running]) await stop(bg); });

  const commands = readmeCommands();
  t.match(commands[0], { command: 'npm install && npm start' }, 'the first line starts the platform');
  t.match(commands[1], { command: 'npm install && npm test' }, 'the second runs the tests');
  // A fresh clone's install compiles better-sqlite3 from source (its prebuilt binary is downloaded from outside,
  // which a loopback-only machine cannot reach): 120 s on this 2-core machine beside one other job, over 240 s
  // beside two engine tests. The bound is there to catch a hang, so it is set well past the loaded time.
  const install = await sh('npm install', {}, 600_000);
  if (install.code !== 0 && /ENOTFOUND|EAI_AGAIN|ECONNREFUSED/.test(install.stdout + install.stderr)) {
    return t.skip('npm install cannot reach the npm registry from here', () => {});
  }
  t.equal(install.code, 0, install.code === 0 ? 'npm install' : `npm install: ${install.stderr.slice(-2000)}`);

  let server: Background | null = null;
  let key = '';
  for (const { command, comment } of commands.slice(2)) {
    const name = `${command}${comment ? `  # ${comment}` : ''}`;
    if (/terminal 1/.test(comment)) {
      if (server) await stop(server);
      const current = background(command);
      server = current;
      await until(() => `${command} to say it is ready: ${current.output().slice(-1500)}`, 120_000, () => current.output().includes('Ringbase ready:'));
      t.match(current.output(), /Ringbase ready: dashboard http:\/\/127\.0\.0\.1:8080\/dashboard/, `${name}: serves on 127.0.0.1:8080`);
      continue;
    }
    if (/terminal 2/.test(comment)) {
      const app = background(command);
      await until(() => `${command} to listen on 3000: ${app.output()}`, 20_000, () => listening(3000));
      t.pass(`${name}: listening on 127.0.0.1:3000`);
      continue;
    }
    if (/^KEY=sk_live_\.\.\.$/.test(command)) {
      t.match(key, /^sk_live_/, 'the key printed by the command before');
      continue;
    }
    const res = await sh(command, { KEY: key });
    t.equal(res.code, 0, `${name}: exits 0 ${res.stderr.slice(-1000)}`);
    const out = res.stdout;
    if (/key create/.test(command)) key = (JSON.parse(out) as { key: string }).key;
    if (/account create/.test(command)) t.match(JSON.parse(out), { id: 1 }, `${name}: account 1, as the README says`);
    if (/curl .*\/api\/partner\/trunks -H/.test(command)) t.match(JSON.parse(out), { id: 1, transport: 'wss', status: 'pending' }, `${name}: a wss trunk`);
    if (/\/connection/.test(command)) t.match(JSON.parse(out), { ice_servers: [{ urls: Array }] }, `${name}: the connection with ICE servers`);
    if (/markup check/.test(command)) t.notMatch(out + res.stderr, /error/i, `${name}: lints clean`);
    if (/simulate inbound/.test(command)) t.match(out, /caller\s+hears/, `${name}: says what the caller hears`);
    if (/curl .*\/api\/calls/.test(command)) t.match(JSON.parse(out), { sid: /^CA/, direction: 'outbound-api' }, `${name}: a call placed`);
  }
  t.ok(server, 'the README started the server');
});

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { ROOT, cleanEnv } from './spawn.js';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface ServerProcess { url: string; child: ChildProcess; output: () => string; exited: Promise<number | null> }

/** Starts src/main.ts as its own process and resolves once it logs that it is listening. */
export async function startServerProcess(env: Record<string, string>, t: { teardown(fn: () => unknown): void }): Promise<ServerProcess> {
  const port = await freePort();
  // One process (node with tsx's loader), so killing it leaves nothing behind holding the pipes.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT, env: cleanEnv({ HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', ...env }), stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      if (out.includes('Server listening')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d) => { out += d; });
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  // Where it listens as it says itself: PORT in `env` may name another port, or a range.
  const listening = /Server listening at (https?:\/\/[^\s"]+)/.exec(out)?.[1];
  return { url: listening ?? `http://127.0.0.1:${port}`, child, output: () => out, exited };
}

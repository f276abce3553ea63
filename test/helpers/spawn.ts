import { spawn, type SpawnOptions } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'bin', 'ringbase');

export interface RunResult { code: number | null; stdout: string; stderr: string }

/** Runs a command to completion with a hard deadline so a hung child can never hang the suite. */
export function run(cmd: string, args: string[], opts: SpawnOptions & { input?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, ...opts, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => { stdout += d; });
    child.stderr!.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
    child.stdin!.end(opts.input ?? '');
  });
}

/** The environment a person's shell would give a child: without the test runner's loader hooks. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  for (const k of Object.keys(env)) if (k.startsWith('TAP') || k.startsWith('_TAPJS')) delete env[k];
  return env;
}

/** The operator CLI against one data dir, as an operator would run it. */
export function cli(dataDir: string, extraEnv: Record<string, string> = {}) {
  return (...args: string[]) => run(CLI, args, { env: cleanEnv({ RINGBASE_DATA_DIR: dataDir, ...extraEnv }) });
}

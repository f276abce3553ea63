// A whole Ringbase server on the sandbox engine in this process, on a throwaway data dir, for benchmarks of the
// HTTP side (API, dashboard): what bench/platform.ts is for the real engines.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { systemClock, type Clock } from '../src/clock.js';
import { openStore, type Store } from '../src/store/index.js';
import { createSecretBox } from '../src/crypto/secret-box.js';
import { SandboxEngine } from '../src/engine/sandbox/index.js';
import { createApp, type App } from '../src/http/app.js';

export interface SandboxApp { app: App; store: Store; clock: Clock; base: string; stop(): Promise<void> }

export async function startSandboxApp(): Promise<SandboxApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ringbase-bench-'));
  const config = loadConfig({ RINGBASE_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' });
  const clock = systemClock();
  const store = openStore(dataDir, clock);
  const engine = new SandboxEngine(clock);
  await engine.start();
  const app = await createApp({ config, store, engine, clock, logger: pino({ level: 'warn' }), secrets: createSecretBox(randomBytes(32)) });
  await app.http.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.http.server.address() as { port: number }).port}`;
  return {
    app, store, clock, base,
    async stop() {
      await app.http.close();
      await engine.stop();
      await app.close();
      store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// A whole Ringbase server in this process on a throwaway data dir with warn-level logs, for benchmarks: on the
// sandbox engine unless `env` configures the real engines (bench/platform.ts does), on the store bench/backend.ts
// selects.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { systemClock, type Clock } from '../src/clock.js';
import { createLogger } from '../src/logger.js';
import { openStore, type Store } from '../src/repositories.js';
import { createSecretBox } from '../src/crypto/secret-box.js';
import { createEngine } from '../src/engine/factory.js';
import { createApp, type App } from '../src/http/app.js';
import { BENCH_DATABASE } from './backend.js';

export interface BenchServer { app: App; store: Store; clock: Clock; base: string; stop(): Promise<void> }

export async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ringbase-bench-'));
  const config = { ...loadConfig({ ...env, RINGBASE_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' }), database: BENCH_DATABASE };
  const logger = createLogger('warn');
  const clock = systemClock();
  const store = await openStore(dataDir, clock, config.database);
  const secrets = createSecretBox(randomBytes(32));
  const engine = createEngine(config, clock, logger, store, secrets);
  await engine.start();
  const app = await createApp({ config, store, engine, clock, logger, secrets });
  await app.http.listen({ host: '127.0.0.1', port: 0 });
  return {
    app, store, clock, base: `http://127.0.0.1:${(app.http.server.address() as AddressInfo).port}`,
    async stop() {
      await app.http.close();
      await engine.stop();
      await app.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

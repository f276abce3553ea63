// The platform as benchmarks run it: in-process on real engines, a fresh data dir, warn-level logs, a number
// whose webhook is `hookUrl`, and every loopback source a carrier (sipp callers come from many ports).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { systemClock } from '../src/clock.js';
import { createLogger } from '../src/logger.js';
import { openStore, type Store } from '../src/store/index.js';
import { createSecretBox } from '../src/crypto/secret-box.js';
import { createEngine } from '../src/engine/factory.js';
import { createApp } from '../src/http/app.js';
import { NumberService } from '../src/numbers/service.js';
import type { RunningEngines } from '../test/helpers/engines.js';

export interface BenchPlatform { store: Store; accountId: number; base: string; stop(): Promise<void> }

export async function startPlatform(e: RunningEngines, did: string, hookUrl: string, env: Record<string, string> = {}): Promise<BenchPlatform> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ringbase-bench-data-'));
  const config = loadConfig({ ...e.env, RINGBASE_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', RINGBASE_SIP_HOST: 'sip.bench.example', ...env });
  const logger = createLogger('warn');
  const clock = systemClock();
  const store = openStore(dataDir, clock);
  const engine = createEngine(config, clock, logger, store);
  await engine.start();
  const app = await createApp({ config, store, engine, clock, logger, secrets: createSecretBox(randomBytes(32)) });
  await app.http.listen({ host: '127.0.0.1', port: 0 });
  const account = store.accounts.create({ name: 'bench', trunking: false, trunkCapacity: 0 });
  new NumberService(store.numbers, { allowLocalTargets: true }).add(did, account.id, { webhook_url: hookUrl });
  store.carriers.add({ name: 'bench-sipp', host: '127.0.0.1', port: null });
  return {
    store, accountId: account.id, base: `http://127.0.0.1:${(app.http.server.address() as AddressInfo).port}`,
    async stop() {
      await app.http.close();
      await engine.stop();
      await app.close();
      store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

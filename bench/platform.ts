// The platform as benchmarks run it: in-process on real engines, a fresh data dir, warn-level logs, a number
// whose webhook is `hookUrl`, and every loopback source a carrier (sipp callers come from many ports).
import type { Store } from '../src/repositories.js';
import type { PromptCache } from '../src/media/prompt-cache.js';
import { NumberService } from '../src/numbers/service.js';
import { startBenchServer } from './server.js';
import type { RunningEngines } from '../test/helpers/engines.js';
import { carrierAtAddress } from '../src/store/carriers.js';

export interface BenchPlatform { store: Store; accountId: number; base: string; prompts: PromptCache | null; stop(): Promise<void> }

export async function startPlatform(e: RunningEngines, did: string, hookUrl: string, env: Record<string, string> = {}): Promise<BenchPlatform> {
  const { app, store, base, stop } = await startBenchServer({ ...e.env, RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', RINGBASE_SIP_HOST: 'sip.bench.example', ...env });
  const account = await store.accounts.create({ name: 'bench', trunking: false, trunkCapacity: 0 });
  await new NumberService(store.numbers, { allowLocalTargets: true }).add(did, account.id, { webhook_url: hookUrl });
  await store.carriers.add('bench-sipp', carrierAtAddress('127.0.0.1', null, null));
  return { store, accountId: account.id, base, prompts: app.callServices.prompts ?? null, stop };
}

// The platform as benchmarks run it: in-process on real engines, a fresh data dir, warn-level logs, a number
// whose webhook is `hookUrl`, and every loopback source a carrier (sipp callers come from many ports); and what a
// sipp load runs against (startLoadRig).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Store } from '../src/repositories.js';
import type { PromptCache } from '../src/media/prompt-cache.js';
import { NumberService } from '../src/numbers/service.js';
import { startBenchServer } from './server.js';
import { findEngineBinaries, startEngines, SKIP_LINE, type EngineBinaries, type RunningEngines } from '../test/helpers/engines.js';
import { carrierAtAddress } from '../src/store/carriers.js';
import { RtpSink } from './rtp-sink.js';

export interface BenchPlatform { store: Store; accountId: number; base: string; prompts: PromptCache | null; stop(): Promise<void> }

export async function startPlatform(e: RunningEngines, did: string, hookUrl: string, env: Record<string, string> = {}): Promise<BenchPlatform> {
  const { app, store, base, stop } = await startBenchServer({ ...e.env, RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', RINGBASE_SIP_HOST: 'sip.bench.example', ...env });
  const account = await store.accounts.create({ name: 'bench', trunking: false, trunkCapacity: 0 });
  await new NumberService(store.numbers, { allowLocalTargets: true }).add(did, account.id, { webhook_url: hookUrl });
  await store.carriers.add('bench-sipp', carrierAtAddress('127.0.0.1', null, null));
  return { store, accountId: account.id, base, prompts: app.callServices.prompts ?? null, stop };
}

/** The real engines' binaries; on a machine without them, the skip line (bench/run.ts reports it) and the end of the script. */
export function engineBinariesOrExit(): EngineBinaries {
  const bins = findEngineBinaries();
  if (bins) return bins;
  console.log(SKIP_LINE);
  process.exit(0);
}

/** What a sipp load runs against: the engines, drachtio's SIP address, a scratch dir for sipp, the load's RTP sink. */
export interface LoadRig { eng: RunningEngines; target: string; scratch: string; sink: RtpSink; stop(): Promise<void> }

export async function startLoadRig(bins: EngineBinaries, name: string): Promise<LoadRig> {
  // FreeSWITCH's default of 30 new sessions per second would cap every load alike: raised well above any step.
  const eng = await startEngines(bins, { sessionsPerSecond: 1000 });
  const scratch = mkdtempSync(path.join(tmpdir(), `ringbase-bench-${name}-`));
  // Media of load calls goes to an RTP sink in a process of its own: thousands of packets a second received on this
  // process's event loop would be counted in what is measured of the platform running here.
  const sink = await RtpSink.open();
  return {
    eng, scratch, sink, target: `127.0.0.1:${eng.drachtio.sipPort}`,
    async stop() {
      sink.close();
      await eng.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

// Live API throughput with autocannon: authenticated trunk fetch and list (API-key lookup, SQLite read, SIP
// password decryption, JSON serialisation) beside /healthz on the same server as the baseline, in the same run.
// Run: npx tsx bench/api.ts [seconds per case, default 5]
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { systemClock } from '../src/clock.js';
import { openStore } from '../src/store/index.js';
import { createSecretBox } from '../src/crypto/secret-box.js';
import { SandboxEngine } from '../src/engine/sandbox/index.js';
import { createApp } from '../src/http/app.js';

const SECONDS = Math.min(30, Math.max(1, Number(process.argv[2] ?? 5)));
const dataDir = mkdtempSync(path.join(tmpdir(), 'ringbase-bench-'));
const config = loadConfig({ RINGBASE_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' });
const clock = systemClock();
const store = openStore(dataDir, clock);
const engine = new SandboxEngine(clock);
await engine.start();
const app = await createApp({ config, store, engine, clock, logger: pino({ level: 'warn' }), secrets: createSecretBox(randomBytes(32)) });
await app.http.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${(app.http.server.address() as { port: number }).port}`;

const account = store.accounts.create({ name: 'bench', trunking: true, trunkCapacity: 50 });
const { key } = store.apiKeys.create(account.id);
for (let i = 0; i < 20; i++) app.trunks.create(account, 'wss', { label: `seat ${i}` });
await app.trunks.settled();
const trunkId = store.trunks.listForAccount(account.id)[0]!.id;
const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };

async function run(name: string, urlPath: string, auth: boolean) {
  // A worker thread generates the load, so the server keeps the main thread to itself.
  const r = await autocannon({ url: base + urlPath, connections: 32, duration: SECONDS, headers: auth ? headers : {}, workers: 1 });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  console.log(`${name.padEnd(34)} ${Math.round(r.requests.average).toString().padStart(7)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms`);
  return r.requests.average;
}

console.log(`autocannon, 32 connections, ${SECONDS} s per case, server on 127.0.0.1 (one Node process)`);
const baseline = await run('GET /healthz (baseline)', '/healthz', false);
const one = await run(`GET /api/partner/trunks/${trunkId}`, `/api/partner/trunks/${trunkId}`, true);
const list = await run('GET /api/partner/trunks (20)', '/api/partner/trunks', true);
console.log(`fetch at ${Math.round((one / baseline) * 100)}% of baseline, list at ${Math.round((list / baseline) * 100)}%`);

await app.http.close();
await engine.stop();
await app.close();
store.close();
rmSync(dataDir, { recursive: true, force: true });

// `npm run bench`: every benchmark in a child process of its own, one after another (two cores: scripts running
// side by side would measure each other), the rows they print through bench/row.ts collected into one table,
// printed and written to bench/results.md with the machine described. A script that is absent, skips (no
// engines), fails or runs past its budget becomes a skipped row, never a crash of the whole run.
// Run: npm run bench [-- name ...]   (names from SCRIPTS below; default all).
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROW_PREFIX, type BenchRow } from './row.js';
import { describeMachine } from './machine.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

interface Script { name: string; file: string; args: string[]; budgetS: number; nodeArgs?: string[] }

// Short settings: the whole run stays near 25 minutes on the 2-core machine the figures were taken on (the soak 5 of them).
const SCRIPTS: Script[] = [
  { name: 'api', file: 'api.ts', args: ['3'], budgetS: 150 },
  { name: 'delivery', file: 'delivery.ts', args: ['1000'], budgetS: 90 },
  { name: 'sip', file: 'sip.ts', args: ['50'], budgetS: 300 },
  { name: 'streams', file: 'streams.ts', args: [], budgetS: 150 },
  { name: 'speech', file: 'speech.ts', args: [], budgetS: 120 },
  { name: 'conference', file: 'conference.ts', args: [], budgetS: 420 },
  { name: 'dashboard', file: 'dashboard.ts', args: ['100000', '200'], budgetS: 60 },
  { name: 'acd', file: 'acd.ts', args: ['1000', '10000', '3000'], budgetS: 60 },
  // api, delivery and acd again on PostgreSQL, with the same settings.
  { name: 'store', file: 'store.ts', args: ['3', '1000', '1000', '10000', '3000'], budgetS: 480 },
  { name: 'acd-ring', file: 'acd-ring.ts', args: ['20'], budgetS: 120 },
  { name: 'cluster', file: 'cluster.ts', args: ['400'], budgetS: 120 },
  { name: 'cluster-calls', file: 'cluster-calls.ts', args: [], budgetS: 300 },
  // 3 minutes of calls (the issue's 30 minutes: npx tsx bench/soak.ts 30); --expose-gc for the heap after a full GC.
  { name: 'soak', file: 'soak.ts', args: ['3'], budgetS: 360, nodeArgs: ['--expose-gc'] },
];

type Outcome = { script: Script; rows: BenchRow[]; skipped: string | null; seconds: number };

function runScript(script: Script): Promise<Outcome> {
  const started = Date.now();
  const file = path.join(HERE, script.file);
  const done = (rows: BenchRow[], skipped: string | null): Outcome => ({ script, rows, skipped, seconds: (Date.now() - started) / 1000 });
  if (!existsSync(file)) return Promise.resolve(done([], 'script not present'));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...(script.nodeArgs ?? []), '--import', 'tsx', file, ...script.args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const rows: BenchRow[] = [];
    let skipLine: string | null = null;
    let tail = '';
    let pending = '';
    const onLine = (line: string) => {
      if (line.startsWith(ROW_PREFIX)) {
        try { rows.push(JSON.parse(line.slice(ROW_PREFIX.length)) as BenchRow); } catch { /* a broken row is reported as missing */ }
        return;
      }
      if (/skipped/i.test(line) && skipLine === null) skipLine = line.replace(/^#\s*/, '');
      process.stdout.write(`  [${script.name}] ${line}\n`);
    };
    child.stdout.on('data', (d: Buffer) => {
      pending += d.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(onLine);
    });
    child.stderr.on('data', (d: Buffer) => { tail = (tail + d.toString()).slice(-2000); });
    // The whole process group: a script's engines (drachtio-server, FreeSWITCH, sipp) go with it.
    const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* already gone */ } }, script.budgetS * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (pending) onLine(pending);
      if (rows.length) return resolve(done(rows, null));
      if (skipLine) return resolve(done([], skipLine));
      if (signal) return resolve(done([], `stopped after its ${script.budgetS} s budget`));
      if (code !== 0) process.stderr.write(tail);
      resolve(done([], code === 0 ? 'printed no rows' : `exited with code ${code}`));
    });
  });
}

const fmt = (n: number | null, unit = '') => (n === null || !Number.isFinite(n) ? '—' : `${Number(n.toPrecision(4))}${unit ? ` ${unit}` : ''}`);

/** How Ringbase compares with its baseline, as a factor where 1 is equal and above 1 is better than baseline. */
function ratio(row: BenchRow): string {
  if (row.baseline === null || row.baseline === 0 || row.value === 0) return '—';
  const r = row.better === 'higher' ? row.value / row.baseline : row.baseline / row.value;
  return `${r.toFixed(2)}x`;
}

function table(outcomes: Outcome[]): string {
  const lines = [
    '| figure | Ringbase | baseline | ratio (>1 better) | target | met |',
    '|---|---|---|---|---|---|',
  ];
  for (const o of outcomes) {
    if (o.skipped !== null) {
      lines.push(`| ${o.script.name} | skipped: ${o.skipped} | | | | |`);
      continue;
    }
    for (const r of o.rows) {
      const baseline = r.baseline === null ? '—' : `${fmt(r.baseline, r.unit)} (${r.baselineName})`;
      const met = r.met === undefined ? '—' : r.met ? 'yes' : 'no';
      lines.push(`| ${r.figure} | ${fmt(r.value, r.unit)} | ${baseline} | ${ratio(r)} | ${r.target ?? '—'} | ${met} |`);
    }
  }
  return lines.join('\n');
}

const wanted = process.argv.slice(2);
const chosen = wanted.length ? SCRIPTS.filter((s) => wanted.includes(s.name)) : SCRIPTS;
const started = new Date();
const outcomes: Outcome[] = [];
for (const script of chosen) {
  console.log(`== ${script.name} (${script.file}, at most ${script.budgetS} s)`);
  const outcome = await runScript(script);
  console.log(`   ${outcome.skipped ?? `${outcome.rows.length} rows`} in ${outcome.seconds.toFixed(0)} s`);
  outcomes.push(outcome);
}
const result = table(outcomes);
console.log(`\n${result}\n`);
const machine = describeMachine();
const minutes = ((Date.now() - started.getTime()) / 60_000).toFixed(1);
writeFileSync(path.join(HERE, 'results.md'), [
  '# Benchmark results',
  '',
  `Written by \`npm run bench\` (bench/run.ts) on ${started.toISOString()}, ${minutes} minutes in all. Every script ran`,
  'alone in its own process; each baseline was measured in the same run on the same machine; each script says its method at its top.',
  '',
  '## Machine',
  '',
  ...machine.map((m) => `- ${m}`),
  '',
  '## Figures',
  '',
  result,
  '',
].join('\n'));
console.log('written to bench/results.md');

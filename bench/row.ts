// The one shape every benchmark reports in: `npm run bench` (bench/run.ts) runs each script in a child process and
// collects the lines it prints with ROW_PREFIX into one table, so a script stays runnable on its own as well.
export const ROW_PREFIX = 'BENCH-ROW ';

export interface BenchRow {
  /** What is measured, e.g. "API trunk fetch (req/s)". */
  figure: string;
  value: number;
  /** The same figure for the baseline measured in the same run (null when the row has none). */
  baseline: number | null;
  /** What the baseline is, e.g. "fastify hello-world". */
  baselineName: string;
  unit: string;
  /** Whether a larger value is better (throughput) or worse (latency). */
  better: 'higher' | 'lower';
  /** The target in words, e.g. ">= 0.6x baseline" or "p95 <= 80 ms". */
  target?: string;
  /** Whether the target is met, when the script can judge it. */
  met?: boolean;
}

export function reportRows(rows: BenchRow[]): void {
  for (const row of rows) console.log(ROW_PREFIX + JSON.stringify(row));
}

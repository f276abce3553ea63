// The store a benchmark runs on: PostgreSQL when RINGBASE_DATABASE_URL names a database (bench/store.ts runs the
// store-bound scripts so, on a throwaway server), otherwise a SQLite file in the script's own data dir, as the
// platform itself decides. Figures measured on PostgreSQL say so in their name, so both backends' rows stand
// side by side in one table.
import { loadConfig, type Config } from '../src/config.js';

export const BENCH_DATABASE: Config['database'] = loadConfig({ ...process.env, RINGBASE_DATA_DIR: '.' }).database;
export const ON_POSTGRES = BENCH_DATABASE.url !== null;

/** `figure` as the table shows it: marked when it was measured on PostgreSQL. */
export function onBackend(figure: string): string {
  return ON_POSTGRES ? `${figure} [PostgreSQL]` : figure;
}

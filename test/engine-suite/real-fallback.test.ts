// Fallback URLs (fallback-suite.ts) on real drachtio-server + FreeSWITCH (skipped with one line when absent).
import t from 'tap';
import { fallbackSuite } from './fallback-suite.js';
import { realDrivers } from './real-driver.js';
import { enginesOrSkip } from '../helpers/engines.js';

const bins = enginesOrSkip(t);
if (bins) {
  // Each call waits on real media; the timeout case waits out the 5 s webhook budget.
  t.setTimeout(10 * 60_000);
  fallbackSuite(t, realDrivers(t, bins));
}

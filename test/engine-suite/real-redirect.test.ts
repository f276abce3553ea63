// Redirecting live calls through the API (redirect-suite.ts) on real drachtio-server + FreeSWITCH (skipped with one
// line when absent).
import t from 'tap';
import { redirectSuite } from './redirect-suite.js';
import { realDrivers } from './real-driver.js';
import { enginesOrSkip } from '../helpers/engines.js';

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(10 * 60_000);
  redirectSuite(t, realDrivers(t, bins));
}

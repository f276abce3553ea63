// Ending live calls through the API (call-control-suite.ts) on real drachtio-server + FreeSWITCH (skipped with one
// line when absent).
import t from 'tap';
import { callControlSuite } from './call-control-suite.js';
import { realDrivers } from './real-driver.js';
import { enginesOrSkip } from '../helpers/engines.js';

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(10 * 60_000);
  callControlSuite(t, realDrivers(t, bins));
}

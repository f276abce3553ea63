// The call-flow and calls-API suites, unchanged, on real drachtio-server + FreeSWITCH (skipped with one line when absent).
import t from 'tap';
import { callFlowSuite } from './suite.js';
import { callsApiSuite } from './calls-suite.js';
import { realDrivers } from './real-driver.js';
import { enginesOrSkip } from '../helpers/engines.js';

const bins = enginesOrSkip(t);
if (bins) {
  // Real calls take real time (Gather timeouts, a 60 s queue wait): far beyond the default per-file budget.
  t.setTimeout(20 * 60_000);
  const make = realDrivers(t, bins);
  callFlowSuite(t, make);
  callsApiSuite(t, make);
}

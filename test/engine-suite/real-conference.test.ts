// The conference suite, unchanged, on real drachtio-server + FreeSWITCH (skipped with one line when absent).
import t from 'tap';
import { conferenceSuite } from './conference-suite.js';
import { realDrivers } from './real-driver.js';
import { enginesOrSkip } from '../helpers/engines.js';

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(5 * 60_000);
  conferenceSuite(t, realDrivers(t, bins));
}

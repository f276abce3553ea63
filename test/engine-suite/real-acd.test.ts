// The ACD suite, unchanged, on real drachtio-server + FreeSWITCH: sipp callers, sipp phones registered as the
// agents' seats (skipped with one line when the engines are absent).
import t from 'tap';
import { acdSuite } from './acd-suite.js';
import { realDrivers } from './real-driver.js';
import { enginesOrSkip } from '../helpers/engines.js';

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(5 * 60_000);
  acdSuite(t, realDrivers(t, bins));
}

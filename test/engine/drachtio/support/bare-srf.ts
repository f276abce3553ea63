// A drachtio-srf of a test file's own, connected to engines started for that file: for engine modules tested
// without the platform (carrier registration, gateway health). Stopped when the file's tests end.
import Srf from 'drachtio-srf';
import type { Test } from 'tap';
import { startEngines, type EngineBinaries, type RunningEngines } from '../../../helpers/engines.js';
import { bounded } from '../../../helpers/waits.js';

export function srfOnEngines(t: Test, bins: EngineBinaries): { srf: Srf; engines: () => RunningEngines } {
  let eng: RunningEngines | undefined;
  const srf = new Srf();
  t.before(async () => {
    eng = await startEngines(bins);
    const connected = new Promise<void>((resolve, reject) => srf.once('connect', (err: Error | null) => (err ? reject(err) : resolve())));
    srf.connect({ host: eng.drachtio.host, port: eng.drachtio.port, secret: eng.drachtio.secret });
    await bounded('drachtio connect', 15_000, connected);
  });
  t.teardown(async () => {
    try { srf.disconnect(); } catch { /* not connected */ }
    await eng?.stop();
  });
  return { srf, engines: () => eng! };
}

import { loadConfig, loadMasterKey, ConfigError } from './config.js';
import { systemClock } from './clock.js';
import pino from 'pino';
import { createLogger } from './logger.js';
import { openStore } from './repositories.js';
import { createSecretBox } from './crypto/secret-box.js';
import { createEngine } from './engine/factory.js';
import { createApp } from './http/app.js';
import { jssipBundle } from './http/dashboard/jssip.js';
import { prettyDestination } from './log-pretty.js';
import { readyLine } from './ready-line.js';
import { settledWithin } from './waits.js';
import { listenOnFirstFree } from './http/listen-range.js';

async function main(): Promise<void> {
  // Whatever this process or a library creates (data dir, database, recordings, logs to files) is for its own
  // user only; the modules that create those paths also set their modes explicitly (src/private-files.ts).
  process.umask(0o077);
  let config;
  let masterKey;
  try {
    config = loadConfig();
    masterKey = loadMasterKey(config.dataDir);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`ringbase: configuration error: ${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  // JSON lines for machines, written asynchronously (a request never waits for its log line; what is still
  // buffered is written at exit, lost only on SIGKILL); words for a person at a terminal.
  const logger = createLogger(config.logLevel, process.stdout.isTTY ? prettyDestination(process.stdout) : pino.destination({ dest: 1, sync: false }));
  const clock = systemClock();
  const store = await openStore(config.dataDir, clock, config.database);
  const secrets = createSecretBox(masterKey);
  const engine = createEngine(config, clock, logger, store, secrets);
  await engine.start();
  // Asked through the database (`ringbase node drain`): the same shutdown as SIGTERM.
  let drainAsked = () => undefined as void;
  const app = await createApp({ config, store, engine, clock, logger, secrets, onDrainAsked: () => drainAsked() });
  if (config.devAllowLocalTargets) {
    logger.warn('RINGBASE_DEV_ALLOW_LOCAL_TARGETS=1: customer URLs may point at loopback; never use this in production');
  }
  await app.trunks.provisionOnStart();
  // Built now, not when the first agent opens the console: a broken install is said at start.
  jssipBundle().catch((err: unknown) => logger.error({ err }, 'JsSIP could not be built: browser agents cannot connect until it is'));
  await listenOnFirstFree(app.http, config.host, config.port, config.portLast);
  const https = Boolean(config.tls.certFile || config.tls.selfSigned);
  process.stdout.write(`${readyLine(config, app.http.server.address() as { port: number }, https)}\n`);

  let stopping = false;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ why, grace_seconds: config.drainSeconds }, 'shutting down: draining (no new calls; the calls in progress get the grace period)');
    // While the calls finish, HTTP stays up: their commands (forwarded by peers too) and reads still work; new
    // calls go to other nodes (src/http/cluster/drain.ts).
    await app.drain();
    const drained = (await settledWithin(app.calls.settled().then(() => true), config.drainSeconds * 1000)) ?? false;
    if (!drained) logger.warn('calls still up after the drain period; hanging them up');
    await app.http.close();
    // Background work stops while the engine is still up; calls left after the grace period are hung up by it.
    if (drained) await app.close();
    await engine.stop();
    await app.close();
    await store.close();
    logger.flush();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  drainAsked = () => void shutdown('ringbase node drain');
}

await main();

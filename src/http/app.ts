import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { Store } from '../repositories.js';
import type { Carrier } from '../store/carriers.js';
import type { EnginePort } from '../engine/port.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { randomToken } from '../crypto/tokens.js';
import { TrunkService } from '../trunks/service.js';
import { frameworkErrors, installErrorHandling, MAX_PATH_SEGMENT_CHARS } from './error-handler.js';
import { validatorCompiler } from './validation.js';
import { bearerAuth } from './auth.js';
import { authThrottleFor } from './shared-auth-throttle.js';
import { createMetrics, metricsRoute } from './metrics.js';
import { installOpenApi } from './openapi.js';
import { installHealth } from './health.js';
import { trunkRoutes } from './live/trunks.js';
import { callRoutes } from './live/calls.js';
import { recordingRoutes } from './live/recordings.js';
import { cpsCapFor } from '../calls/shared-cps-limiter.js';
import { handleTrunkCall } from '../flows/trunk-calls.js';
import { holdDocuments } from '../flows/hold-documents.js';
import path from 'node:path';
import { createGuardedClient, SipTargetPolicy } from '../net/index.js';
import { SigningSecrets } from '../accounts/signing-secret.js';
import { CustomerHttp } from '../calls/customer-http.js';
import { CallDispatcher } from '../flows/dispatcher.js';
import type { PlatformServices } from './platform-services.js';
import type { CallServices } from '../calls/services.js';
import { MediaCache } from '../media/media-cache.js';
import { CallWatch } from '../calls/watch.js';
import { SandboxEngine } from '../engine/sandbox/index.js';
import { operatorToken } from '../operator-token.js';
import { operatorRoutes } from './operator/simulate.js';
import { dashboardErrorPage, dashboardRoutes } from './dashboard/index.js';
import { createEventSystem, type EventSystem } from '../events/index.js';
import { installPreviewRoot } from './preview/index.js';
import { selfSignedTls } from './preview/self-signed-tls.js';
import { TrustedProxies } from './preview/client-address.js';
import { listenerOptions } from './listener-limits.js';
import { requestLog } from './request-log.js';
import { installRequestEnd } from './request-end.js';
import { lazyRequestLogger } from './request-logger.js';
import { DEFAULT_BODY_LIMIT, installRouteLimits } from './route-limits.js';
import { peerLiveness, startInstance } from '../recovery/index.js';
import { NodeDrain } from './cluster/drain.js';
import { CallForwarding } from './cluster/forwarding.js';
import { FORWARDING_KEY_PURPOSE } from './cluster/forward-signature.js';
import { nodeAddress } from './cluster/node-address.js';
import { AcdService } from '../acd/service.js';
import { installAcdMetrics } from './acd-metrics.js';
import { ConferenceService } from '../conferences/service.js';
import { accountTranscription, speechRecognition } from '../speech/service.js';
import { pocketsphinxRecognizer } from '../speech/pocketsphinx.js';
import { vendorVoices } from '../speech/vendor-voices.js';
import { conferenceBeep } from '../media/tones.js';
import { CallbackOutbox } from '../callbacks/worker.js';
import { CallbackStore } from '../callbacks/store.js';
import { installMediaServerMetrics } from './media-metrics.js';
import { installCarrierMetrics } from './carrier-metrics.js';

export interface AppDeps {
  config: Config;
  store: Store;
  engine: EnginePort;
  clock: Clock;
  logger: Logger;
  secrets: SecretBox;
  /**
   * Called once when this node is asked to drain through the database (`ringbase node drain`): the process begins
   * its shutdown (src/main.ts). Without it the app begins the drain itself and goes on running.
   */
  onDrainAsked?: () => void;
}

export interface App {
  http: FastifyInstance;
  trunks: TrunkService;
  calls: CallDispatcher;
  signingSecrets: SigningSecrets;
  /** Everything call flows use; features built on calls (calls API, dashboard) take it from here. */
  callServices: PlatformServices;
  /** The sandbox that runs simulated calls (the main engine when it is the sandbox). */
  simulator: SandboxEngine;
  /** Lifecycle events: durable outbox, delivery workers (stopped by close()), emitAndWait for sync flows. */
  eventSystem: EventSystem;
  /** Per-resource callbacks (conference status callbacks): durable outbox and its worker (stopped by close()). */
  callbacks: CallbackOutbox;
  /** Begins this node's drain (src/http/cluster/drain.ts): no new calls; the calls in progress go on. */
  drain(): Promise<void>;
  /** Stops background work and outbound connections (after http.close()). */
  close(): Promise<void>;
}

function tlsOptions(config: Config) {
  if (!config.tls.certFile || !config.tls.keyFile) return null;
  return { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) };
}

const MIB = 1024 * 1024;

/** Builds the whole control plane from its parts; no module-level state, so tests wire their own. */
export async function createApp(deps: AppDeps): Promise<App> {
  const { config, store, engine, clock, logger, secrets } = deps;
  // Unique per process start and cheap per request (a random draw per request cost 4% of a simple API call).
  const requestIdPrefix = randomToken(9);
  let requestCount = 0;
  const https = tlsOptions(config) ?? (config.tls.selfSigned ? await selfSignedTls(config) : null);
  const proxies = new TrustedProxies(config.trustedProxies);
  const http = Fastify({
    loggerInstance: logger,
    // Fastify's own two lines per request give way to src/http/request-log.ts's one.
    logController: new LogController({ disableRequestLogging: true }),
    ...listenerOptions(config.http, https, (ip) => proxies.trusts(ip)),
    genReqId: () => `req_${requestIdPrefix}${(++requestCount).toString(36)}`,
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: DEFAULT_BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_SEGMENT_CHARS },
    frameworkErrors: frameworkErrors(dashboardErrorPage),
  }) as unknown as FastifyInstance;
  installRouteLimits(http);
  const metrics = createMetrics();
  installRequestEnd(http, [requestLog(logger), (ended) => metrics.requests.record(ended)]);
  http.setValidatorCompiler(validatorCompiler);
  installErrorHandling(http, dashboardErrorPage);
  // Hooks that run on every request take a callback rather than returning a promise: a promise and its microtasks
  // per hook per request added up.
  http.addHook('onSend', (req, reply, payload, done) => {
    void reply.header('x-request-id', String(req.id));
    done(null, payload);
  });

  // Bodies are JSON (and form-encoded where a scope adds that parser); fastify's text/plain default is no API's.
  http.removeContentTypeParser('text/plain');
  // An empty JSON body means "no fields" (every create/update field is optional), not a parse error.
  const jsonParser = http.getDefaultJsonParser('error', 'error');
  http.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, {});
    jsonParser(req, body as string, done);
  });

  // Before any route and the preview root's checks: a request a peer forwarded skips what the peer already did.
  const forwarding = new CallForwarding({
    instances: store.instances, self: store.instanceId, key: secrets.derive(FORWARDING_KEY_PURPOSE), clock,
    log: logger.child({ component: 'forwarding' }), liveness: () => peerLiveness(store.instanceId, clock),
  });
  forwarding.install(http);
  await installOpenApi(http);
  installMediaServerMetrics(metrics.open, engine);
  installCarrierMetrics(metrics.open, engine);
  const drain = new NodeDrain({ instances: store.instances, self: store.instanceId, engine, log: logger.child({ component: 'drain' }) });
  installHealth(http, store, engine, drain);

  const trunks = new TrunkService(store.trunks, engine, secrets, logger.child({ component: 'trunks' }), { allowLocalTargets: config.devAllowLocalTargets });
  const signingSecrets = new SigningSecrets(store.accounts, secrets);
  // Plain http is allowed for what markup names (action URLs, audio); stored customer URLs were held to https when
  // written (checkCustomerUrl). Every target is still SSRF-checked at connect time.
  const outbound = createGuardedClient({ allowLoopback: config.devAllowLocalTargets, requireHttps: false });
  const eventSystem = await createEventSystem({ store, clock, secrets, log: logger.child({ component: 'events' }), allowLocalTargets: config.devAllowLocalTargets });
  const events = eventSystem.events;
  const customerHttp = new CustomerHttp(outbound, signingSecrets, clock);
  const callbacks = new CallbackOutbox({ store: new CallbackStore(store.sql, clock), http: customerHttp, clock, log: logger.child({ component: 'callbacks' }) });
  callbacks.start();
  // The SIP target policy checks synchronously: it sees the carriers' gateway hosts as last read, read again after each
  // check, so a carrier added or removed at run time counts from the next check on.
  const gatewayHosts = (all: readonly Carrier[]) => all.flatMap((c) => c.gateways.map((g) => g.host));
  let carrierHosts = gatewayHosts(await store.carriers.list());
  const rereadCarrierHosts = () => store.carriers.list().then((all) => { carrierHosts = gatewayHosts(all); }, () => undefined);
  const media = new MediaCache({
    dir: path.join(config.dataDir, 'media-cache'), client: outbound, clock,
    log: logger.child({ component: 'media' }), allowLoopback: config.devAllowLocalTargets,
    maxBytes: config.mediaCache.maxMb * MIB, maxFileBytes: config.mediaCache.maxFileMb * MIB,
  });
  // The calls kernel's services; the ACD and conferences carry calls with them, and markup runs with all three.
  const kernel = {
    store, engine, clock, events, media,
    holdAudio: holdDocuments,
    log: logger.child({ component: 'calls' }),
    http: customerHttp,
    recordingsDir: path.join(config.dataDir, 'recordings'),
    urls: { allowLocalTargets: config.devAllowLocalTargets },
    publicBaseUrl: config.publicBaseUrl ?? `http://${config.host}:${config.port}`,
    watch: new CallWatch(),
    // Rendered speech shares the fetched media's cache (one byte bound, one eviction order).
    prompts: engine.usePromptCache?.(media) ?? null,
    voices: vendorVoices({ settings: store.voiceSettings, secrets, client: outbound, media, clock }),
    sip: new SipTargetPolicy({
      allowLoopback: config.devAllowLocalTargets, allowedNetworks: config.sipAllowedNetworks,
      carrierHosts: () => { void rereadCarrierHosts(); return carrierHosts; },
    }),
  } satisfies CallServices;
  const callServices: PlatformServices = {
    ...kernel,
    conferences: new ConferenceService(kernel, callbacks, conferenceBeep(path.join(config.dataDir, 'tones'))),
    acd: new AcdService(kernel),
    speech: speechRecognition({ offline: pocketsphinxRecognizer(), accountVendor: accountTranscription(store.speechSettings, secrets, outbound) }),
  };
  installAcdMetrics(metrics, store, callServices.acd.stats, () => clock.now());
  // Before any call is taken: what a dead predecessor left open is finished first.
  const instance = await startInstance(callServices, deps.onDrainAsked ?? (() => void drain.begin()));
  // Peers forward commands for this node's calls to where it listens, once it does.
  http.addHook('onListen', async () => {
    await store.instances.advertise(store.instanceId, nodeAddress(config, http.server.address(), https !== null));
  });
  callServices.acd.start();
  callServices.conferences.start();
  const calls = new CallDispatcher(callServices);
  calls.setTrunkHandler(handleTrunkCall);
  engine.onIncomingCall((incoming) => void calls.handle(incoming));
  // Simulated calls (CLI simulate, dashboard test calls) always run on a sandbox, even beside a real engine.
  const simulator = engine instanceof SandboxEngine ? engine : new SandboxEngine(clock);
  if (simulator !== engine) {
    await simulator.start();
    simulator.onIncomingCall((incoming) => void calls.handle(incoming));
  }
  // One throttle for both roots: failures on /api and /v1 count against the same address. It and the CPS cap are
  // in this process's memory on SQLite, and shared by every control plane on the database on PostgreSQL.
  const authThrottle = authThrottleFor(store.sql, clock, { limit: config.authThrottle.failLimit, windowMs: config.authThrottle.failWindowSeconds * 1000 });
  const authenticate = bearerAuth(store, authThrottle, (req) => proxies.clientIp(req));
  const cps = cpsCapFor(store.sql, clock);

  await http.register(async (live) => {
    live.addHook('onRequest', authenticate);
    await live.register(async (scope) => trunkRoutes(scope, { config, store, trunks, clock }));
    await live.register(async (scope) => callRoutes(scope, { services: callServices, cps, dispatcher: calls, forwarding, drain }));
    await live.register(async (scope) => recordingRoutes(scope, { services: callServices, forwarding }));
  });
  const token = operatorToken(config.dataDir, true)!;
  const tokenChecks = { throttle: authThrottle, clientIp: (req: FastifyRequest) => proxies.clientIp(req) };
  metricsRoute(http, metrics, { ...tokenChecks, operatorToken: token, metricsToken: config.metricsToken });
  await http.register(async (scope) => operatorRoutes(scope, {
    ...tokenChecks, token, simulator, watch: callServices.watch, engine, cluster: { store, clock, self: store.instanceId },
  }));
  await installPreviewRoot(http, { config, store, clock, secrets, eventSystem, callServices, dispatcher: calls, cps, authenticate, forwarding });
  await http.register(async (scope) => dashboardRoutes(scope, {
    config, store, clock, trunks, signingSecrets, callServices, dispatcher: calls, simulator, secrets, eventSystem, forwarding,
    operator: { token, throttle: authThrottle },
  }), { prefix: '/dashboard' });

  let released: Promise<void> | undefined;
  return {
    http, trunks, calls, signingSecrets, callServices, simulator, eventSystem, callbacks,
    drain: () => drain.begin(),
    // Called after the drain and again after the engine stops: settles both times, releases resources once.
    async close() {
      await calls.settled();
      await trunks.settled();
      // The instance goes first: callbacks of reconciled calls still need the outbound client.
      callServices.acd.stop();
      callServices.conferences.stop();
      released ??= instance.stop().then(() => callbacks.stop())
        .then(() => Promise.all([outbound.close(), forwarding.close(), eventSystem.close(), simulator !== engine ? simulator.stop() : undefined])).then(() => undefined);
      await released;
    },
  };
}

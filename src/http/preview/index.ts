// The preview root (/v1): HTTPS only, bearer API keys (lead injection excepted), per-key rate limits,
// 400 + param on bad input, cursor pages. Routes added under /v1 later belong inside `authenticated` below.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Store } from '../../repositories.js';
import type { EventSystem } from '../../events/index.js';
import { isPreview } from '../error-handler.js';
import { previewErrors } from '../errors.js';
import { TrustedProxies } from './client-address.js';
import { rateLimiterFor } from './shared-rate-limit.js';
import { RateGate } from './rate-gate.js';
import { installPreviewErrorMapping } from './error-mapping.js';
import { webhookRoutes } from './webhooks.js';
import { leadInjectionRoutes, leadRoutes } from './lead-injections.js';
import { conferenceRoutes } from './conferences.js';
import { queueRoutes } from './queues.js';
import { agentRoutes } from './agents.js';
import { dispositionRoutes } from './dispositions.js';
import { callbackRoutes } from './callbacks.js';
import { agentMonitorRoutes } from './agent-monitor.js';
import { leadCampaignRoutes } from './lead-campaigns.js';
import { speechSettingsRoutes } from './speech-settings.js';
import { voiceSettingsRoutes } from './voice-settings.js';
import type { PlatformServices } from '../platform-services.js';
import type { CallDispatcher } from '../../flows/dispatcher.js';
import type { CallsPerSecondCap } from '../../calls/cps-limiter.js';
import type { AuthenticateHook } from '../auth.js';
import type { CallForwarding } from '../cluster/forwarding.js';

export interface PreviewDeps {
  config: Config; store: Store; clock: Clock; secrets: SecretBox; eventSystem: EventSystem;
  callServices: PlatformServices; dispatcher: CallDispatcher; cps: CallsPerSecondCap;
  /** The bearer-key check the live root uses too, so both share one failed-attempt throttle. */
  authenticate: AuthenticateHook;
  /** Commands for calls another control plane carries go there. */
  forwarding: CallForwarding;
}

export async function installPreviewRoot(http: FastifyInstance, deps: PreviewDeps): Promise<void> {
  const { config, store, clock } = deps;
  const proxies = new TrustedProxies(config.trustedProxies);
  const rate = new RateGate(rateLimiterFor(store.sql, clock, config.preview.rateLimit, config.preview.rateWindowSeconds * 1000));

  // App-wide, so every /v1 path (unknown ones too) refuses plain HTTP before looking at credentials.
  http.addHook('onRequest', (req, _reply, done) => {
    // A request a peer forwarded reached that peer over HTTPS; the hop between control planes is theirs.
    done(isPreview(req) && !req.forwardedBy && !proxies.isHttps(req) ? previewErrors.httpsRequired() : undefined);
  });

  await http.register(async (preview) => {
    installPreviewErrorMapping(preview);
    await preview.register(async (authenticated) => {
      authenticated.addHook('onRequest', deps.authenticate);
      // Counted where the client sent it: a forwarded request is not counted again.
      authenticated.addHook('onRequest', async (req, reply) => { if (!req.forwardedBy) await rate.check(`key:${req.apiKeyId}`, reply); });
      await authenticated.register(async (scope) => webhookRoutes(scope, deps));
      await authenticated.register(async (scope) => leadRoutes(scope, deps));
      await authenticated.register(async (scope) => conferenceRoutes(scope, { services: deps.callServices, dispatcher: deps.dispatcher, cps: deps.cps, forwarding: deps.forwarding }));
      await authenticated.register(async (scope) => queueRoutes(scope, { store, media: deps.callServices.media }));
      await authenticated.register(async (scope) => agentRoutes(scope, { store, acd: deps.callServices.acd }));
      await authenticated.register(async (scope) => speechSettingsRoutes(scope, { store, secrets: deps.secrets, urls: deps.callServices.urls, offline: deps.callServices.speech.offline }));
      await authenticated.register(async (scope) => voiceSettingsRoutes(scope, { store, secrets: deps.secrets, urls: deps.callServices.urls }));
      await authenticated.register(async (scope) => callbackRoutes(scope, { store, clock }));
      await authenticated.register(async (scope) => leadCampaignRoutes(scope, { services: deps.callServices }));
      await authenticated.register(async (scope) => agentMonitorRoutes(scope, { services: deps.callServices, dispatcher: deps.dispatcher, cps: deps.cps, forwarding: deps.forwarding }));
      await authenticated.register(async (scope) => dispositionRoutes(scope, { store, acd: deps.callServices.acd }));
    });
    await preview.register(async (scope) => leadInjectionRoutes(scope, { store, events: deps.eventSystem.events, proxies, rate }));
  });
}

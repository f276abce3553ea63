import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import type { Store } from '../../repositories.js';
import type { Account } from '../../store/accounts.js';
import type { TrunkService } from '../../trunks/service.js';
import type { SigningSecrets } from '../../accounts/signing-secret.js';
import type { PlatformServices } from '../platform-services.js';
import type { CallDispatcher } from '../../flows/dispatcher.js';
import type { SandboxEngine } from '../../engine/sandbox/index.js';
import type { NumberService } from '../../numbers/service.js';
import type { UserService } from '../../users/service.js';
import type { User } from '../../users/repo.js';
import type { Html } from './html.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { EventSystem } from '../../events/index.js';
import type { CallForwarding } from '../cluster/forwarding.js';
import type { AuthFailureLimit } from '../auth-throttle.js';

export interface DashboardDeps {
  config: Config;
  store: Store;
  clock: Clock;
  trunks: TrunkService;
  signingSecrets: SigningSecrets;
  callServices: PlatformServices;
  /** Every call flow a page starts is tracked here, so a shutdown waits for it. */
  dispatcher: CallDispatcher;
  simulator: SandboxEngine;
  secrets: SecretBox;
  eventSystem: EventSystem;
  /** Hang up and Redirect of a call another control plane carries go there (docs/cluster.md). */
  forwarding: CallForwarding;
  /** The operator pages' sign-in: the operator token, and the throttle wrong ones count in (as on the API). */
  operator: { token: string; throttle: AuthFailureLimit };
}

/** Everything the route groups use; built once by the dashboard plugin. */
export interface Dashboard extends DashboardDeps {
  users: UserService;
  numbers: NumberService;
}

/** The signed-in user as seen by a page. */
export interface Viewer { user: User; account: Account; csrf: string; sessionToken: string }

declare module 'fastify' {
  interface FastifyRequest {
    viewer: Viewer | null;
    /** The token a form on this page must echo back: the session's, or the pre-session cookie's. */
    csrfToken: string;
  }
}

/** For routes behind the session check: the viewer is always there. */
export function viewerOf(req: FastifyRequest): Viewer {
  if (!req.viewer) throw new Error('route registered outside the signed-in scope');
  return req.viewer;
}

export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply.status(status).type('text/html; charset=utf-8').send(page.value);
}

/** Form bodies arrive as flat string maps; anything else (repeated keys, no body) reads as empty. */
export function formOf(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  const body = req.body;
  if (body && typeof body === 'object') {
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      out[k] = typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[v.length - 1] as string : '';
    }
  }
  return out;
}

/** Query values the same way: a string or nothing. */
export function queryOf(req: FastifyRequest): Record<string, string> {
  return formOf({ body: req.query } as FastifyRequest);
}

import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import type { EnginePort } from '../../engine/port.js';

/**
 * This control plane's links to the carriers (docs/carriers.md): each pinged gateway's answers to OPTIONS and each
 * carrier registration's state, as its engine sees them now. Registered inside the operator scope (token-authenticated).
 */
export function carrierLinkRoutes(app: FastifyInstance, engine: EnginePort): void {
  app.get('/operator/carriers', { schema: { hide: true } }, async () => {
    if (!engine.carrierLinks) throw new ApiError(409, 'no_carriers', 'The sandbox engine has no carriers.');
    const { gateways, registrations } = engine.carrierLinks();
    return {
      gateways: gateways.map((g) => ({ carrier: g.carrier, gateway: g.gateway, up: g.up, last_status: g.lastStatus, rtt_ms: g.rttMs, checked_at: g.checkedAt })),
      registrations: registrations.map((r) => ({ carrier: r.carrier, state: r.state, expires_at: r.expiresAt, last_status: r.lastStatus, last_error: r.lastError })),
    };
  });
}

import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from '../errors.js';
import type { EnginePort } from '../../engine/port.js';

const DrainBody = Type.Object({ draining: Type.Boolean() }, { additionalProperties: false });

/**
 * The media servers of the real engine (FREESWITCH_SERVERS): their state and load, and drain. Draining a server
 * stops new calls going to it while its calls finish, before taking it down for maintenance. Registered inside
 * the operator scope (token-authenticated).
 */
export function mediaServerRoutes(app: FastifyInstance, engine: EnginePort): void {
  const servers = () => {
    if (!engine.mediaServers) throw new ApiError(409, 'no_media_servers', 'The sandbox engine has no media servers.');
    return engine.mediaServers();
  };
  app.get('/operator/media-servers', { schema: { hide: true } }, async () => ({ data: servers() }));
  app.post<{ Params: { name: string }; Body: Static<typeof DrainBody> }>('/operator/media-servers/:name', { schema: { hide: true, body: DrainBody } }, async (req) => {
    servers();
    if (!engine.drainMediaServer?.(req.params.name, req.body.draining)) {
      throw new ApiError(404, 'media_server_not_found', `No media server is named ${req.params.name} (host:port as in FREESWITCH_SERVERS).`);
    }
    return servers().find((s) => s.name === req.params.name);
  });
}

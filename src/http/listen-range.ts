import type { FastifyInstance } from 'fastify';

/**
 * Listens on the first free port of first..last (PORT=8080-8089): several nodes on one host's network (docker
 * compose --scale with host networking) each take their own. The bind itself decides which ports are free, so two
 * nodes starting together never both take one.
 */
export async function listenOnFirstFree(http: FastifyInstance, host: string, first: number, last: number): Promise<void> {
  for (let port = first; ; port++) {
    try {
      await http.listen({ host, port });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || first === last) throw err;
      if (port >= last) throw new Error(`no port of PORT ${first}-${last} is free on ${host}: another process listens on each`);
    }
  }
}

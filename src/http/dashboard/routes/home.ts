import type { FastifyInstance } from 'fastify';
import { sendPage, viewerOf, type Dashboard } from '../context.js';
import { callsPerDay } from '../call-stats.js';
import { homeView } from '../views/home.js';

const DAYS = 14;
const RECENT = 10;

export function homeRoutes(app: FastifyInstance, d: Dashboard): void {
  app.get('/', async (req, reply) => {
    const v = viewerOf(req);
    const days = await callsPerDay(d.store.sql, v.account.id, d.clock.now(), DAYS);
    return sendPage(reply, homeView(v, days, (await d.store.calls.list(v.account.id, { limit: RECENT })).calls));
  });
}

import { Gauge, type Registry } from 'prom-client';
import type { EnginePort } from '../engine/port.js';

/** Per media server (real engine): whether it takes new calls, whether it drains, and its sessions, read at scrape time. */
export function installMediaServerMetrics(registry: Registry, engine: EnginePort): void {
  if (!engine.mediaServers) return;
  const servers = () => engine.mediaServers?.() ?? [];
  const gauge = (name: string, help: string, value: (s: ReturnType<typeof servers>[number]) => number) => new Gauge({
    name, help, labelNames: ['server'], registers: [registry],
    collect() {
      this.reset();
      for (const s of servers()) this.set({ server: s.name }, value(s));
    },
  });
  gauge('ringbase_media_server_up', 'Media server takes new calls (1) or not (0)', (s) => (s.state === 'up' ? 1 : 0));
  gauge('ringbase_media_server_draining', 'Media server drains: its calls finish, it takes no new ones', (s) => (s.state === 'draining' ? 1 : 0));
  gauge('ringbase_media_server_sessions', 'Sessions on the media server (its last probe, plus media placed there that the probe could not count)', (s) => s.load);
}

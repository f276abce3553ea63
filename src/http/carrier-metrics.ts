import { Gauge, type Registry } from 'prom-client';
import type { EnginePort } from '../engine/port.js';

/** Per pinged carrier gateway and per carrier registration (real engine), read at scrape time. */
export function installCarrierMetrics(registry: Registry, engine: EnginePort): void {
  if (!engine.carrierLinks) return;
  const links = () => engine.carrierLinks!();
  new Gauge({
    name: 'ringbase_carrier_gateway_up', help: 'Carrier gateway answers its OPTIONS pings (1) or is skipped by calls (0)', labelNames: ['carrier', 'gateway'], registers: [registry],
    collect() {
      this.reset();
      for (const g of links().gateways) this.set({ carrier: g.carrier, gateway: g.gateway }, g.up ? 1 : 0);
    },
  });
  new Gauge({
    name: 'ringbase_carrier_registered', help: 'The platform holds a registration with the carrier (1) or not (0)', labelNames: ['carrier'], registers: [registry],
    collect() {
      this.reset();
      for (const r of links().registrations) this.set({ carrier: r.carrier }, r.state === 'registered' ? 1 : 0);
    },
  });
}

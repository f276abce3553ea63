// Carrier gateways as the engine sees them: trusted sources of DID calls, and the route for calls to numbers.
// The list is read from the store on every call, so carriers added with the operator CLI count without a restart.

export interface CarrierGateway {
  name: string;
  host: string;
  /** null: trusted from any source port; 5060 outbound. */
  port: number | null;
  /** Outbound only: numbers starting with this go here (longest prefix wins; null matches everything). */
  prefix: string | null;
}

export interface CarrierDirectory { list(): Promise<CarrierGateway[]> }

export const NO_CARRIERS: CarrierDirectory = { list: async () => [] };

/** The carrier a request came from, by source address (and port when the carrier names one). */
export async function carrierAt(dir: CarrierDirectory, address: string, port: number): Promise<CarrierGateway | undefined> {
  return (await dir.list()).find((c) => c.host === address && (c.port === null || c.port === port));
}

/** The gateway for a call to `number`: the longest matching prefix, else a carrier without a prefix. */
export async function routeFor(dir: CarrierDirectory, number: string): Promise<CarrierGateway | undefined> {
  let best: CarrierGateway | undefined;
  for (const c of await dir.list()) {
    if (c.prefix !== null && !number.startsWith(c.prefix)) continue;
    if (!best || (c.prefix?.length ?? 0) > (best.prefix?.length ?? 0)) best = c;
  }
  return best;
}

export function gatewayUri(c: CarrierGateway, number: string): string {
  const host = c.host.includes(':') ? `[${c.host}]` : c.host;
  return `sip:${number}@${host}:${c.port ?? 5060}`;
}

// The telephony engine interface. The control plane never imports drachtio or FreeSWITCH outside
// src/engine/drachtio/; everything else speaks to an engine through these types.
import type { Transport } from '../store/trunks.js';

export interface TrunkCredentials {
  endpointName: string;
  /** null when the stored password cannot be decrypted: the engine must then refuse the trunk's logins. */
  password: string | null;
  transport: Transport;
}

export interface EngineHealth {
  ok: boolean;
  detail: string;
}

export interface EnginePort {
  readonly kind: 'sandbox' | 'drachtio';
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): EngineHealth;
  /** Resolves once the SIP layer accepts logins with these credentials; rejects when it cannot. */
  provisionTrunk(trunk: TrunkCredentials): Promise<void>;
  /** Stops accepting the trunk's logins and ends its registrations (revoke, suspend). */
  deprovisionTrunk(endpointName: string): Promise<void>;
}

export class EngineError extends Error {
  override name = 'EngineError';
  constructor(message: string, readonly engineStatus?: number, readonly engineBody?: string) { super(message); }
}

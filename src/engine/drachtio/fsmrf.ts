// Typed views of the parts of drachtio-fsmrf (CommonJS, untyped) the adapter uses. Keeping the surface in one
// place means an fsmrf upgrade is checked here, not discovered in a call flow.
import { createRequire } from 'node:module';
import type Srf from 'drachtio-srf';

export interface EslEvent {
  getHeader(name: string): string | undefined;
  getBody(): string;
}

export interface Endpoint {
  readonly uuid: string;
  readonly local: { sdp: string };
  readonly dialog: Srf.Dialog;
  readonly connected: boolean;
  on(event: 'dtmf', fn: (e: { dtmf: string; source?: string }) => void): this;
  on(event: 'destroy', fn: (e?: { reason?: string }) => void): this;
  on(event: string, fn: (...args: any[]) => void): this;
  once(event: string, fn: (...args: any[]) => void): this;
  removeListener(event: string, fn: (...args: any[]) => void): this;
  set(name: string | Record<string, string>, value?: string): Promise<unknown>;
  execute(app: string, arg?: string): Promise<EslEvent>;
  api(command: string, args?: string | string[]): Promise<EslEvent>;
  play(file: string | string[]): Promise<unknown>;
  speak(opts: { ttsEngine: string; voice: string; text: string }): Promise<void>;
  record(file: string, opts: { timeLimitSecs?: number; silenceThresh?: number; silenceHits?: number }): Promise<{ recordMilliseconds?: string; terminatorUsed?: string }>;
  bridge(other: Endpoint | string): Promise<void>;
  unbridge(): Promise<void>;
  modify(sdp: string): Promise<unknown>;
  destroy(): Promise<void>;
}

export interface MediaServer {
  readonly sip: { ipv4: { udp: { address?: string } } };
  readonly currentSessions: number;
  connected(): boolean;
  on(event: 'end' | 'error', fn: (...args: any[]) => void): this;
  removeAllListeners(): this;
  api(command: string): Promise<string>;
  createEndpoint(opts?: { remoteSdp?: string; codecs?: string[]; headers?: Record<string, string> }): Promise<Endpoint>;
  connectCaller(req: Srf.SrfRequest, res: Srf.SrfResponse, opts?: { headers?: Record<string, string> }): Promise<{ endpoint: Endpoint; dialog: Srf.Dialog }>;
  disconnect(): void;
}

export interface MrfConnectOptions {
  address: string;
  port: number;
  secret: string;
  listenAddress: string;
  listenPort?: number;
  advertisedAddress?: string;
}

interface MrfClass { new (srf: Srf): { connect(opts: MrfConnectOptions): Promise<MediaServer> } }

const require = createRequire(import.meta.url);
export const Mrf = require('drachtio-fsmrf') as MrfClass;

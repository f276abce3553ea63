// Typed views of the parts of drachtio-fsmrf (CommonJS, untyped) the adapter uses. Keeping the surface in one
// place means an fsmrf upgrade is checked here, not discovered in a call flow.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Server, Socket } from 'node:net';
import type Srf from 'drachtio-srf';
import { bye } from './dialogs.js';
import { creationOn, fsmrfServer } from './channel-hooks.js';

export interface EslEvent {
  getHeader(name: string): string | undefined;
  getBody(): string;
}

export interface Endpoint {
  readonly uuid: string;
  readonly local: { sdp: string };
  readonly dialog: Srf.Dialog;
  readonly connected: boolean;
  /** The fsmrf MediaServer this endpoint lives on (its own object, not the tagging proxy). */
  readonly mediaserver: unknown;
  /** The channel's event-socket connection (events filtered to this channel): conference joins are confirmed on it. */
  readonly conn: { on(event: string, fn: (evt: EslEvent) => void): void; removeListener(event: string, fn: (evt: EslEvent) => void): void };
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
  /** SIP headers every media INVITE of this server carries (see channel-hooks.ts). */
  readonly channelTags?: Record<string, string>;
  createEndpoint(opts?: { remoteSdp?: string; codecs?: string[]; headers?: Record<string, string> }): Promise<Endpoint>;
  connectCaller(req: Srf.SrfRequest, res: Srf.SrfResponse, opts?: { headers?: Record<string, string> }): Promise<{ endpoint: Endpoint; dialog: Srf.Dialog }>;
  disconnect(): void;
}

/** SDES-SRTP in a 3PCC endpoint's offer: `required`, RTP/SAVP only; `offered`, RTP/SAVP and RTP/AVP (the far end picks). */
export type SrtpOffer = 'offered' | 'required';

/**
 * The media INVITE's header that makes FreeSWITCH's offer carry SDES crypto. A 3PCC offer is made as the INVITE
 * arrives, before any dialplan runs, so the channel's rtp_secure_media_inbound must be set by then: the drachtio_mrf
 * profile takes this header as the name of a directory entry (apply-inbound-acl-x-token) whose variables the
 * channel gets first (freeswitch/directory/media.xml). Such an endpoint is made with offerFromServer.
 */
export const secureMediaHeaders = (srtp: SrtpOffer): Record<string, string> => ({ 'X-Ringbase-Media': `srtp-${srtp}@media` });

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

/** The pieces of fsmrf's MediaServer that pair FreeSWITCH's event-socket connection with a SIP dialog. */
interface PendingConnection { dialog?: Srf.Dialog; conn?: unknown; fn?: (conn: unknown) => void; connTimeout?: NodeJS.Timeout }
interface MediaServerInternals {
  pendingConnections: Map<string, PendingConnection>;
  advertisedAddress: string;
  advertisedPort: number;
  /** The inbound event socket, and the server FreeSWITCH's per-channel (outbound) event sockets connect to. */
  _conn: { socket: Socket };
  _server: { server: Server };
}

/**
 * drachtio-modesl writes a command a header line at a time, and a Node socket holds back each small write while the
 * previous one is unacknowledged (Nagle): on loopback that is a 40 ms delayed ACK, so every command to FreeSWITCH (a
 * playback, a conference join, an answer) started 40 ms late. Both kinds of event socket send at once instead.
 */
export function sendWithoutDelay(ms: MediaServer): void {
  const internals = ms as unknown as MediaServerInternals;
  internals._conn.socket.setNoDelay(true);
  internals._server.server.on('connection', (socket: Socket) => socket.setNoDelay(true));
}

/**
 * When FreeSWITCH does not connect back in time, fsmrf's createEndpoint destroys the media dialog and drops the
 * promise destroy() returns. With drachtio's connection gone meanwhile (a restart, a shutdown) that promise rejects
 * unhandled, which ends the process. Every dialog fsmrf parks while it waits gets a destroy() whose failure is
 * handled; a caller awaiting it still sees the failure.
 */
export function catchAbandonedDestroys(ms: MediaServer): void {
  const pending = (ms as unknown as MediaServerInternals).pendingConnections;
  const set = pending.set.bind(pending);
  pending.set = (uuid, entry) => {
    let dialog = entry.dialog;
    Object.defineProperty(entry, 'dialog', {
      enumerable: true, configurable: true, get: () => dialog,
      set: (d: Srf.Dialog | undefined) => { dialog = d && withHandledDestroy(d); },
    });
    return set(uuid, entry);
  };
}

function withHandledDestroy(dialog: Srf.Dialog): Srf.Dialog {
  const destroy = dialog.destroy.bind(dialog) as (...args: unknown[]) => unknown;
  (dialog as { destroy: unknown }).destroy = (...args: unknown[]) => {
    const result = destroy(...args);
    if (result instanceof Promise) result.catch(() => undefined);
    return result;
  };
  return dialog;
}

const EndpointClass = require('drachtio-fsmrf/lib/endpoint') as new (conn: unknown, dialog: Srf.Dialog, ms: MediaServer, opts: object) => Endpoint;

/** fsmrf's own wait for FreeSWITCH's event socket once the media INVITE is answered. */
const ESL_CONNECTION_TIMEOUT_MS = 4_000;

/**
 * Media for an offer that needs a DTLS handshake but did not arrive in an INVITE: a WebRTC seat's offer in the
 * 200 OK to a late-offer INVITE. It is what fsmrf's connectCaller does for an incoming call: FreeSWITCH gets
 * the offer, its answer goes to the far end at once (`deliverAnswer`, the ACK) so the handshake can run, and
 * the endpoint exists when FreeSWITCH's event socket connects back after it.
 */
export async function connectOffer(srf: Srf, ms: MediaServer, offer: string, deliverAnswer: (sdp: string) => Promise<void>): Promise<Endpoint> {
  const created = creationOn(ms);
  try {
    return await offerToServer(srf, ms, offer, deliverAnswer);
  } finally {
    created();
  }
}

async function offerToServer(srf: Srf, ms: MediaServer, offer: string, deliverAnswer: (sdp: string) => Promise<void>): Promise<Endpoint> {
  // Through a channel-hooks proxy these reads reach the real server.
  const internals = ms as unknown as MediaServerInternals;
  const uuid = randomUUID();
  const pending: PendingConnection = {};
  internals.pendingConnections.set(uuid, pending);
  let media: Srf.Dialog;
  try {
    media = await srf.createUAC(`sip:drachtio@${ms.sip.ipv4.udp.address}`, {
      headers: { ...ms.channelTags, 'User-Agent': `drachtio-fsmrf:${uuid}`, 'X-esl-outbound': `${internals.advertisedAddress}:${internals.advertisedPort}` },
      localSdp: offer,
    });
  } catch (err) {
    internals.pendingConnections.delete(uuid);
    throw err;
  }
  const connected = new Promise<unknown>((resolve, reject) => {
    if (pending.conn) { internals.pendingConnections.delete(uuid); resolve(pending.conn); return; }
    pending.dialog = media;
    pending.fn = resolve;
    pending.connTimeout = setTimeout(() => {
      internals.pendingConnections.delete(uuid);
      reject(new Error('FreeSWITCH did not connect back after the DTLS offer'));
    }, ESL_CONNECTION_TIMEOUT_MS);
  });
  try {
    await deliverAnswer(media.remote.sdp);
    const conn = await connected;
    const ep = new EndpointClass(conn, media, fsmrfServer(ms), {});
    await new Promise<void>((resolve) => ep.once('ready', () => resolve()));
    return ep;
  } catch (err) {
    clearTimeout(pending.connTimeout);
    internals.pendingConnections.delete(uuid);
    await bye(media);
    throw err;
  }
}

/** An endpoint whose offer is made and whose answer is still to come (offerFromServer). */
export interface PendingEndpoint {
  readonly pendingAnswer: true;
  /** FreeSWITCH's offer. */
  readonly local: { sdp: string };
  /** Gives FreeSWITCH the far end's answer (in the ACK) and resolves with the endpoint once its channel is ready. */
  answer(sdp: string): Promise<Endpoint>;
  /** Gives up before the answer: the media dialog is acknowledged and hung up. */
  destroy(): Promise<void>;
}

export const isPending = (ep: Endpoint | PendingEndpoint): ep is PendingEndpoint => (ep as PendingEndpoint).pendingAnswer === true;

/**
 * A 3PCC endpoint whose offer's answer goes to FreeSWITCH in the ACK, as RFC 3264 has it, instead of fsmrf's way
 * (createEndpoint ACKs at once with FreeSWITCH's own offer turned recvonly, and the far end's answer follows in a
 * re-INVITE). That re-INVITE is a new offer to FreeSWITCH, and with SDES keys FreeSWITCH answers a new offer with
 * a new key of its own: it would send SRTP with a key the far end never got. Here the answer is the first SDP
 * FreeSWITCH gets, so the key of its offer is the key it sends with. Until answer() or destroy(), FreeSWITCH
 * repeats its 200 OK; it gives up on the ACK at its timer H (the profile's timer-T1X64, freeswitch/sip_profiles/mrf.xml).
 */
export async function offerFromServer(srf: Srf, ms: MediaServer, headers: Record<string, string>): Promise<PendingEndpoint> {
  const created = creationOn(ms);
  const internals = ms as unknown as MediaServerInternals;
  const uuid = randomUUID();
  const pending: PendingConnection = {};
  internals.pendingConnections.set(uuid, pending);
  let unacked: { sdp: string; ack(sdp: string): Promise<Srf.Dialog>; destroy(): Promise<void> };
  try {
    unacked = await srf.createUAC(`sip:drachtio@${ms.sip.ipv4.udp.address}`, {
      headers: { ...ms.channelTags, ...headers, 'User-Agent': `drachtio-fsmrf:${uuid}`, 'X-esl-outbound': `${internals.advertisedAddress}:${internals.advertisedPort}` },
      noAck: true,
    } as unknown as Srf.CreateUACOptions) as unknown as typeof unacked;
  } catch (err) {
    internals.pendingConnections.delete(uuid);
    created();
    throw err;
  }
  let settled = false;
  const settle = () => {
    if (settled) return false;
    settled = true;
    created();
    return true;
  };
  return {
    pendingAnswer: true,
    local: { sdp: unacked.sdp },
    async answer(sdp) {
      if (!settle()) throw new Error('endpoint already answered or given up');
      let media: Srf.Dialog | null = null;
      try {
        media = await unacked.ack(sdp);
        const dialog = media;
        const conn = await new Promise<unknown>((resolve, reject) => {
          if (pending.conn) { internals.pendingConnections.delete(uuid); resolve(pending.conn); return; }
          pending.dialog = dialog;
          pending.fn = resolve;
          pending.connTimeout = setTimeout(() => {
            internals.pendingConnections.delete(uuid);
            reject(new Error('FreeSWITCH did not connect back after the answer'));
          }, ESL_CONNECTION_TIMEOUT_MS);
        });
        const ep = new EndpointClass(conn, dialog, fsmrfServer(ms), {});
        await new Promise<void>((resolve) => ep.once('ready', () => resolve()));
        return ep;
      } catch (err) {
        clearTimeout(pending.connTimeout);
        internals.pendingConnections.delete(uuid);
        if (media) await bye(media);
        else await unacked.destroy().catch(() => undefined);
        throw err;
      }
    },
    async destroy() {
      if (!settle()) return;
      internals.pendingConnections.delete(uuid);
      await unacked.destroy().catch(() => undefined);
    },
  };
}

// Media streams on the real engine without any FreeSWITCH module: a second FreeSWITCH endpoint whose remote
// side is a UDP socket in this process (RtpGateway).
// - bidirectional: the caller's endpoint is bridged to it, so the caller's audio arrives on the socket (track
//   'inbound') and every RTP frame sent from the socket is what the caller hears.
// - fork: the new endpoint runs `eavesdrop` on the caller's channel, so the socket receives the call's mix (the
//   caller and what is played to them, in one stream, delivered as track 'inbound'); the call is not touched.
//   callerOnly: eavesdrop_bridge_aleg on the eavesdropper, so that its media bug reads the caller's read stream
//   alone (switch_ivr_async.c: ED_BRIDGE_READ without ED_BRIDGE_WRITE), not what the platform plays.
import { systemClock } from '../../clock.js';
import { PacedAudioTap } from '../paced-tap.js';
import { EngineError, type AudioTap, type AudioTapOptions } from '../port.js';
import type { Endpoint, MediaServer } from './fsmrf.js';
import { quietly, type MediaContext } from './media-context.js';
import { readThroughJitterBuffer } from './jitter-buffer.js';
import { answerAddress, gatewayOffer, RtpGateway } from './rtp-gateway.js';
import type { OnServer } from './media-pool.js';
import { settledWithin } from '../../waits.js';

/** What the engine lends its legs for media streams. */
export interface AudioGatewayConfig {
  /** Where the RTP sockets bind (config: the media listen address, as for FreeSWITCH's event socket). */
  bind: string;
  /** The address the stream's SDP offer names: the one FreeSWITCH reaches this process on (an IPv4 literal). */
  address: string;
  /** The media server for the stream's endpoint, beside `near` (the leg's own endpoint) when it can be. */
  media: (near?: OnServer) => MediaServer | null;
}

/** FreeSWITCH's channel variable that makes a bridged channel read packets as they arrive (no media timer). */
const NO_TIMER = 'rtp_notimer_during_bridge';

/** The longest a closing stream waits for FreeSWITCH to confirm its channel ended. */
const RELEASE_MS = 3_000;

type Leg = Pick<MediaContext, 'ep' | 'ended' | 'isEnded' | 'log'>;

export async function openDrachtioAudio(leg: Leg, gateway: AudioGatewayConfig, opts: AudioTapOptions): Promise<AudioTap> {
  if (leg.isEnded) throw new EngineError('the leg has ended');
  const ms = gateway.media(leg.ep);
  if (!ms) throw new EngineError('FreeSWITCH is not connected');
  let tap: PacedAudioTap | undefined;
  const rtp = await RtpGateway.open(gateway.bind, (payload) => tap?.deliver({ track: 'inbound', payload }));
  let ep: Endpoint | undefined;
  try {
    ep = await ms.createEndpoint({ remoteSdp: gatewayOffer(gateway.address, rtp.port, opts.mode === 'fork' ? 'recvonly' : 'sendrecv'), codecs: ['PCMU'] });
    const remote = answerAddress(ep.local.sdp);
    if (!remote) throw new EngineError('FreeSWITCH answered the stream offer without an audio address');
    rtp.connect(remote);
    if (opts.mode === 'bidirectional') {
      // The caller's channel reads packets as they come for the bridge, not on FreeSWITCH's 20 ms timer: a tick
      // that finds no packet yet sends nothing, and the packet that comes a moment later is then discarded as
      // replaced by that silence (switch_rtp.c read_rtp_packet, last_cng_ts), so a phone 30 ms late lost 20 ms
      // of audio each time. Read at the bridge only (the channel gets its timer back at unbridge), and cleared
      // when the stream closes. Not the stream's own channel: without a timer, its read waits for a packet from
      // a socket already closed, and its hangup waited with it (the SIP dialog stayed up).
      await ms.api(`uuid_setvar ${leg.ep.uuid} ${NO_TIMER} true`);
      // The stream's own channel keeps its timer and reads the gateway's frames through the jitter buffer instead.
      await readThroughJitterBuffer(ms, ep);
      await leg.ep.bridge(ep);
    }
    // eavesdrop runs until either channel ends; its completion needs no handling.
    else {
      if (opts.callerOnly) await ep.set('eavesdrop_bridge_aleg', 'true');
      void quietly(leg, 'eavesdrop', () => ep!.execute('eavesdrop', leg.ep.uuid));
    }
  } catch (err) {
    rtp.close();
    await ep?.destroy().catch(() => undefined);
    throw err instanceof EngineError ? err : new EngineError(`media stream could not be set up: ${(err as Error).message}`);
  }
  const streamEp = ep;
  tap = new PacedAudioTap(opts.mode, systemClock(), {
    play: (frame, at) => rtp.send(frame, at),
    async release() {
      leg.log.debug({ rtp: rtp.stats }, 'media stream closed');
      rtp.close();
      // A channel busy in eavesdrop does not take fsmrf's hangup on its own event socket: it is killed through
      // the media server's connection (the caller's may be gone with the call, and a command written to a closed
      // one never answers). Destroying the stream's endpoint ends a bridge too; the caller's channel stays up (parked).
      if (opts.mode === 'fork') await quietly(leg, 'stream channel kill', () => ms.api(`uuid_kill ${streamEp.uuid}`));
      await settledWithin(streamEp.destroy().catch(() => undefined), RELEASE_MS);
      // Through the media server's connection too (a command to the caller's channel's closed socket held the
      // stream's channel up); nothing to clear once the call is over.
      if (opts.mode === 'bidirectional' && !leg.isEnded) await quietly(leg, 'stream timer variable', () => ms.api(`uuid_setvar ${leg.ep.uuid} ${NO_TIMER}`));
    },
  }, opts.mode === 'fork' && !opts.callerOnly);
  const opened = tap;
  // Either channel going away ends the stream: the call, or FreeSWITCH dropping the stream's channel.
  void leg.ended.then(() => opened.close());
  streamEp.on('destroy', () => void opened.close());
  return tap;
}

// Channels whose packets come late by nature read through FreeSWITCH's jitter buffer. On its 20 ms timer alone a
// packet that comes after its tick is discarded as replaced by that tick's silence (switch_rtp.c read_rtp_packet,
// last_cng_ts): 20 ms lost each time. Late by nature: the media stream gateway (this process sends, and a busy
// machine or a GC pause delays it) and WebRTC seats (a browser on a busy machine, or over a real network).
import type { Endpoint, MediaServer } from './fsmrf.js';

/** 60 ms of buffer, at most 200 ms: FreeSWITCH's `uuid_jitterbuffer <uuid> <ms>:<max ms>`. */
export const JITTER_BUFFER = '60:200';

/** The channel reads through the jitter buffer from now on, kept during bridges too (FreeSWITCH pauses it there otherwise). */
export async function readThroughJitterBuffer(ms: MediaServer, ep: Endpoint): Promise<void> {
  await ms.api(`uuid_setvar ${ep.uuid} rtp_jitter_buffer_during_bridge true`);
  await ms.api(`uuid_jitterbuffer ${ep.uuid} ${JITTER_BUFFER}`);
}

// A dialled leg's media starts as FreeSWITCH's own offer (a 3PCC endpoint: opus at 48 kHz first, then PCMU and
// PCMA) and takes the far end's answer in a re-INVITE. FreeSWITCH answers that re-INVITE before its channel reads
// with the answered codec, and under load the switch can come tens of milliseconds later. A conference joined in
// between sets the member up at the old rate (48 kHz) and then takes the 8 kHz audio for 48 kHz: the room hears
// the leg at 6× its pitch, one 20 ms frame in six. So a dialled leg is handed over only once FreeSWITCH reads with
// a codec the answer names.
import type { Logger } from 'pino';
import type { Endpoint } from './fsmrf.js';

/** RFC 3551's static audio payload types that a SIP answer may name without an rtpmap line. */
const STATIC_PAYLOADS: Record<string, string> = { 0: 'PCMU', 3: 'GSM', 4: 'G723', 8: 'PCMA', 9: 'G722', 18: 'G729' };
/** Formats that are not a voice codec (keys, comfort noise): FreeSWITCH never reads audio with them. */
const NOT_VOICE = new Set(['TELEPHONE-EVENT', 'CN']);

const POLL_MS = 10;
/** Long past any renegotiation seen (normally done before the first check): after it, the leg goes on with a warning. */
const CODEC_WAIT_MS = 2_000;

/** The voice codecs (upper-case names) of an SDP's first audio stream, in its order. */
function answeredCodecs(sdp: string): string[] {
  const media = /^m=audio \d+(?:\/\d+)? \S+ ([\d ]+)$/m.exec(sdp);
  if (!media) return [];
  const names = new Map<string, string>();
  for (const [, pt, name] of sdp.matchAll(/^a=rtpmap:(\d+) ([^/\s]+)/gm)) names.set(pt!, name!.toUpperCase());
  return media[1]!.trim().split(/\s+/).map((pt) => names.get(pt) ?? STATIC_PAYLOADS[pt] ?? '').filter((name) => name !== '' && !NOT_VOICE.has(name));
}

/** The codec FreeSWITCH's channel reads with now (its session, not the `read_codec` variable, which goes stale). */
async function readCodec(ep: Endpoint): Promise<string> {
  const dump = (await ep.api('uuid_dump', ep.uuid)).getBody();
  return /^Channel-Read-Codec-Name: (.+)$/m.exec(dump)?.[1]?.trim().toUpperCase() ?? '';
}

/**
 * Resolves once the endpoint reads with one of the codecs `answerSdp` names (at once in the usual case), or its
 * channel is gone; after CODEC_WAIT_MS it resolves anyway, logging what it saw: the call goes on rather than failing.
 */
export async function answeredCodecInForce(ep: Endpoint, answerSdp: string, log: Logger): Promise<void> {
  const answered = answeredCodecs(answerSdp);
  if (answered.length === 0) return;
  const deadline = Date.now() + CODEC_WAIT_MS;
  let reading = '';
  let checks = 0;
  while (ep.connected) {
    reading = await readCodec(ep).catch(() => '');
    checks++;
    if (answered.includes(reading)) {
      if (checks > 1) log.debug({ reading, checks }, 'dialled leg: the answered codec took effect');
      return;
    }
    if (Date.now() >= deadline) {
      log.warn({ answered, reading, waitedMs: CODEC_WAIT_MS }, 'dialled leg: FreeSWITCH does not read with the answered codec yet; going on');
      return;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

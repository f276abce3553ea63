// A carrier's codec preference (docs/carriers.md) applied to FreeSWITCH's offer before it goes to the gateway: only
// the carrier's codecs, in its order. FreeSWITCH made the offer for a channel that takes any of its codecs, so
// whatever the gateway picks among these is one FreeSWITCH offered and can answer with.

/** Payload types whose codec RFC 3551 fixes, for offers that leave out their rtpmap. */
const STATIC: Record<string, string> = { 0: 'PCMU/8000', 8: 'PCMA/8000', 9: 'G722/8000' };
/** Kept beside the chosen codecs, at the clock rates those use: keys (RFC 4733) and comfort noise. */
const COMPANIONS = new Set(['TELEPHONE-EVENT', 'CN']);

/**
 * The offer `sdp` with its audio m-line narrowed to `codecs` (FreeSWITCH's names: PCMU, PCMA, G722, OPUS), in that
 * order, plus telephone-event and CN at those codecs' clock rates. An offer holding none of them is returned as it
 * was: a call the gateway may refuse beats one refused here.
 */
export function preferCodecs(sdp: string, codecs: readonly string[]): string {
  if (codecs.length === 0) return sdp;
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const lines = sdp.split(eol);
  const rtpmap = new Map<string, string>();
  for (const line of lines) {
    const m = /^a=rtpmap:(\d+) (\S+)/.exec(line);
    if (m) rtpmap.set(m[1]!, m[2]!.toUpperCase());
  }
  const audio = lines.findIndex((l) => l.startsWith('m=audio '));
  if (audio < 0) return sdp;
  const [m, port, proto, ...pts] = lines[audio]!.split(' ');
  const codecOf = (pt: string) => (rtpmap.get(pt) ?? STATIC[pt] ?? '').split('/');
  const chosen = codecs.flatMap((want) => pts.filter((pt) => codecOf(pt)[0] === want.toUpperCase()));
  if (chosen.length === 0) return sdp;
  const rates = new Set(chosen.map((pt) => codecOf(pt)[1]));
  const kept = [...chosen, ...pts.filter((pt) => COMPANIONS.has(codecOf(pt)[0]!) && rates.has(codecOf(pt)[1]))];
  const dropped = new Set(pts.filter((pt) => !kept.includes(pt)));
  return lines
    .map((line, i) => (i === audio ? [m, port, proto, ...kept].join(' ') : line))
    .filter((line) => !dropped.has(/^a=(?:rtpmap|fmtp|rtcp-fb):(\d+) /.exec(line)?.[1] ?? ''))
    .join(eol);
}

// A carrier whose gateway takes SIP over TLS, with SRTP (SDES) or plain RTP, on the real engines. The gateway is a
// Node TLS listener with a certificate of its own (Debian's sipp has neither TLS nor SRTP); behind it, for SRTP, a
// relay that checks and decrypts FreeSWITCH's SRTP with the key of FreeSWITCH's offer and encrypts the far end's
// audio with the key of its answer (srtp-relay-worker.mjs), between FreeSWITCH and a tone phone. The INVITE is
// checked as it arrived (over TLS, its SDP's crypto), and the call is proven by what the phones hear both ways:
// the far end hears the caller only through packets the relay decrypted, and the caller hears the far end only
// through packets the relay encrypted and FreeSWITCH decrypted.
import t, { type Test } from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { until } from '../../helpers/waits.js';
import { xml } from '../../helpers/webhook-app.js';
import { realDrivers, type RealDriver } from '../../engine-suite/real-driver.js';
import { tonePhone, type TonePhone } from '../../engine-suite/rtp-phone.js';
import { mediaPort } from '../../engine-suite/real-sipp.js';
import { headerOf, tlsGateway, type GatewayRequest, type TlsGateway } from '../../engine-suite/sip-tls-gateway.js';
import { newInlineKey } from '../../engine-suite/srtp.mjs';
import { srtpRelay, type SrtpRelay } from '../../engine-suite/srtp-relay.js';
import { scene, CALLER, DID } from '../../engine-suite/flows.js';
import { listenFor, tally, toneCaller, CALLER_HZ, WAIT_MS } from './support/leg-audio.js';
import { E164_RULES } from '../../../src/net/number-rules.js';
import { selfSignedPems } from '../../../src/crypto/self-signed.js';
import type { SrtpMode } from '../../../src/store/carriers.js';

const PARTY = '+442079460001';
const PARTY_HZ = 700;

/** The far end's SDP answer: PCMA (as its phone speaks) and telephone-event, on `port`; `extra` lines for the m-line. */
const answerSdp = (port: number, proto: 'RTP/AVP' | 'RTP/SAVP', extra: string[] = []) => [
  'v=0', `o=gateway ${Date.now()} 1 IN IP4 127.0.0.1`, 's=-', 'c=IN IP4 127.0.0.1', 't=0 0',
  `m=audio ${port} ${proto} 8 101`, 'a=rtpmap:8 PCMA/8000', 'a=rtpmap:101 telephone-event/8000', 'a=fmtp:101 0-16', 'a=ptime:20', 'a=sendrecv',
  ...extra, '',
].join('\r\n');

/** FreeSWITCH's offered AES_CM_128_HMAC_SHA1_80 line: its tag and inline key. */
const offered80 = (sdp: string) => /^a=crypto:(\d+) AES_CM_128_HMAC_SHA1_80 inline:([A-Za-z0-9+/]{38}==|[A-Za-z0-9+/]{40})/m.exec(sdp);

interface FarEnd { gateway: TlsGateway; phone: TonePhone; relay: () => SrtpRelay | null; invite: () => GatewayRequest | undefined }

/**
 * The carrier's gateway (TLS, its own self-signed certificate, which drachtio-server does not check: see
 * docs/carriers.md) and the far end's phone saying PARTY_HZ. With `srtp`, the answer takes FreeSWITCH's
 * AES_CM_128_HMAC_SHA1_80 offer with a key of its own and the audio goes through the relay; an offer without it
 * is refused with 488. It answers after 2 s of ringing. Without, the answer is plain RTP straight to the phone.
 */
async function farEnd(t: Test, srtp: boolean): Promise<FarEnd> {
  const phone = await tonePhone(PARTY_HZ, 'PCMA');
  const pems = await selfSignedPems('127.0.0.1', 1);
  let relay: SrtpRelay | null = null;
  const gateway = await tlsGateway({
    ...pems,
    // Rings past FreeSWITCH's first 200 OK retransmissions (T1 500 ms, doubling): the SRTP endpoint's ACK waits for the answer.
    ringMs: 2_000,
    answer: async (invite) => {
      if (!srtp) return answerSdp(phone.port, 'RTP/AVP');
      const crypto = offered80(invite.body);
      if (!crypto) return 488;
      const ourKey = newInlineKey();
      const port = await mediaPort();
      relay = await srtpRelay(port, phone.port, crypto[2]!, ourKey);
      const answer = answerSdp(port, 'RTP/SAVP', [`a=crypto:${crypto[1]} AES_CM_128_HMAC_SHA1_80 inline:${ourKey}`]);
      // An offer of SRTP or plain RTP (two audio m-lines, 'offered'): SRTP taken, the plain one refused (port 0), in
      // the offer's order.
      const offered = [...invite.body.matchAll(/^m=audio \d+ (\S+)/gm)].map((m) => m[1]);
      if (offered.length < 2) return answer;
      const [head, media] = [answer.slice(0, answer.indexOf('m=audio')), answer.slice(answer.indexOf('m=audio'))];
      return head + offered.map((proto) => (proto === 'RTP/SAVP' ? media : 'm=audio 0 RTP/AVP 8\r\n')).join('');
    },
  });
  t.teardown(async () => { relay?.close(); phone.close(); await gateway.close(); });
  return { gateway, phone, relay: () => relay, invite: () => gateway.requests.find((r) => r.method === 'INVITE') };
}

async function tlsCarrier(d: RealDriver, port: number, srtp: SrtpMode): Promise<void> {
  await d.h.store.carriers.add('secure', {
    sources: [], gateways: [{ host: '127.0.0.1', port, transport: 'tls', priority: 0, weight: 1 }],
    routes: [{ prefix: '+44', priority: 0, weight: 1 }], auth: null, registration: null,
    numbers: E164_RULES, dtmf: 'rfc2833', codecs: [], optionsPingS: null, srtp,
  });
}

/** A caller to the DID, whose document dials PARTY; both hear each other, measured. */
async function dialAndHear(t: Test, d: RealDriver, far: FarEnd, label: string): Promise<void> {
  const call = await toneCaller(t, d, CALLER, DID, CALLER_HZ);
  const [callerHeard, partyHeard] = await Promise.all([
    listenFor(call.phone, 0, [PARTY_HZ], [], { senders: { [PARTY_HZ]: far.phone } }),
    listenFor(far.phone, 0, [CALLER_HZ], [], { senders: { [CALLER_HZ]: call.phone } }),
  ]);
  const relay = far.relay();
  const calls = tally(t);
  calls.record(label, [['caller hears the far end', callerHeard], ['far end hears the caller', partyHeard]],
    relay ? `relay: ${JSON.stringify(await relay.stats())}` : undefined);
  calls.check(label);
  await call.hangup();
  await until('the gateway got the BYE', WAIT_MS, () => far.gateway.requests.some((r) => r.method === 'BYE'), 50);
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(4 * 60_000);
  const make = realDrivers(t, bins);
  const dialling = async (t: Test, d: RealDriver) => (await scene(t, d)).app.on('/voice', xml(`<Dial timeout="30"><Number>${PARTY}</Number></Dial>`));

  t.test('srtp required: the INVITE goes over TLS offering RTP/SAVP with SDES keys, and both ends hear each other over SRTP', async (t) => {
    const d = await make(t);
    await dialling(t, d);
    const far = await farEnd(t, true);
    await tlsCarrier(d, far.gateway.port, 'required');
    await dialAndHear(t, d, far, 'TLS gateway, SRTP required');
    const invite = far.invite()!;
    t.match(invite.tls, /^TLSv1\.[23]$/, `the INVITE came over TLS (${invite.tls})`);
    t.match(headerOf(invite, 'via'), /^SIP\/2\.0\/TLS /, 'drachtio-server\'s Via names TLS');
    t.match(invite.startLine, /^INVITE sip:\+442079460001@127\.0\.0\.1:\d+;transport=tls SIP\/2\.0$/, 'request URI as gatewayUri writes it');
    t.match(invite.body, /^m=audio \d+ RTP\/SAVP /m, 'the offer is RTP/SAVP');
    t.notMatch(invite.body, /RTP\/AVP /, 'and only that: no plain RTP m-line to fall back to');
    t.ok(offered80(invite.body), 'with an AES_CM_128_HMAC_SHA1_80 key');
    const stats = await far.relay()!.stats();
    t.comment(`relay: ${JSON.stringify(stats)}`);
    t.ok(stats.decrypted >= 100, `the far end decrypted FreeSWITCH's SRTP (${stats.decrypted} packets)`);
    t.equal(stats.refused, 0, 'every SRTP packet from FreeSWITCH had a good tag');
    t.ok(stats.srtpOut >= 100, `the far end sent SRTP (${stats.srtpOut} packets)`);
  });

  t.test('srtp offered: the offer holds SRTP and plain RTP; a gateway taking SRTP is heard both ways over SRTP', async (t) => {
    const d = await make(t);
    await dialling(t, d);
    const far = await farEnd(t, true);
    await tlsCarrier(d, far.gateway.port, 'offered');
    await dialAndHear(t, d, far, 'TLS gateway, SRTP offered');
    const body = far.invite()!.body;
    t.same([...body.matchAll(/^m=audio \d+ (\S+)/gm)].map((m) => m[1]).sort(), ['RTP/AVP', 'RTP/SAVP'], 'both offered');
    const stats = await far.relay()!.stats();
    t.ok(stats.decrypted >= 100 && stats.refused === 0, `the far end decrypted FreeSWITCH's SRTP (${JSON.stringify(stats)})`);
  });

  t.test('srtp off: the INVITE goes over TLS with a plain RTP offer, and both ends hear each other', async (t) => {
    const d = await make(t);
    await dialling(t, d);
    const far = await farEnd(t, false);
    await tlsCarrier(d, far.gateway.port, 'off');
    await dialAndHear(t, d, far, 'TLS gateway, plain RTP');
    const invite = far.invite()!;
    t.match(invite.tls, /^TLSv1\.[23]$/, `the INVITE came over TLS (${invite.tls})`);
    t.match(invite.body, /^m=audio \d+ RTP\/AVP /m, 'the offer is RTP/AVP');
    t.notMatch(invite.body, /a=crypto|RTP\/SAVP/, 'without crypto');
  });
}

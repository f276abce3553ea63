// sipp peers for the real-engine driver: a caller built from sipp/uac.xml (its speech and RFC 2833 digits come
// from sipp's own pcap files, sent by the driver's RTP socket) and dialled parties from the uas-*.xml scenarios. Every sipp runs one call on
// loopback with a hard time limit.
import { spawn } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallerPlan, PartyPlan } from './driver.js';
import { killOnExit } from '../helpers/engines.js';
import type { G711 } from './real-rtp.js';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sipp');
export const PCAP_DIR = process.env.SIPP_PCAP_DIR ?? '/usr/share/sip-tester';
const PCAP_KEYS: Record<string, string> = { '*': 'star', '#': 'pound' };

const FIRST_KEY_MS = 1_000;
const KEY_GAP_MS = 250;
const ENTRY_GAP_MS = 1_500;
/** A caller without a hang-up plan waits this long for the platform's BYE. */
const WAIT_FOR_BYE_MS = 180_000;

export interface SippRun {
  /** Exit code: 0 when the scenario completed, 1 when the call failed or was refused. */
  exited: Promise<number>;
  output(): string;
  kill(): void;
  /** sipp's pid: its Call-IDs are `<call number>-<pid>@<local ip>`. */
  pid: number;
}

function run(args: string[], timeoutMs: number, cwd?: string): SippRun {
  // sipp writes its trace files (-trace_rtt) into its working directory: a scratch dir, never the project.
  const child = spawn(process.env.SIPP_BIN ?? 'sipp', args, { stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
  killOnExit(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-20_000); });
  child.stderr.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-20_000); });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exited = new Promise<number>((resolve) => child.on('close', (code) => { clearTimeout(timer); resolve(code ?? 1); }));
  return { exited, output: () => out, kill: () => { if (child.exitCode === null) child.kill('SIGKILL'); }, pid: child.pid ?? 0 };
}

/** Binds `port` on loopback (0: any); resolves with the socket, or null when the port is taken. */
function bindUdp(port: number): Promise<Socket | null> {
  const s = createSocket('udp4');
  return new Promise((resolve) => {
    s.once('error', () => { s.close(); resolve(null); });
    s.bind(port, '127.0.0.1', () => resolve(s));
  });
}

const closeUdp = (s: Socket) => new Promise<void>((r) => s.close(() => r()));

/** A free even UDP port (a test phone's RTP socket). */
export async function mediaPort(): Promise<number> {
  for (;;) {
    const s = (await bindUdp(0))!;
    const port = s.address().port;
    await closeUdp(s);
    if (port % 2 === 0 && port < 65000) return port;
  }
}

/**
 * A free even port for sipp's `-mp`, with the port two above it free too: sipp binds its audio socket there and its
 * video socket two above, and exits ("Unable to bind video RTP socket ... Address already in use") when that one is
 * taken, by a test phone or another sipp (FreeSWITCH's RTP windows lie below the ephemeral range: helpers/engines.ts).
 * A supervisor's or participant's call then failed and its phone heard nothing (seen once in 60 supervisor calls on
 * a loaded run).
 */
async function sippMediaPort(): Promise<number> {
  for (;;) {
    const audio = await mediaPort();
    const [a, v] = await Promise.all([bindUdp(audio), bindUdp(audio + 2)]);
    for (const s of [a, v]) if (s) await closeUdp(s);
    if (a && v) return audio;
  }
}

export type SipTransport = 'udp' | 'tcp';

/**
 * sipp's arguments and scenario edit for a transport. Over TCP the Contact says `transport=tcp`, so requests the
 * platform sends to it (BYE) come over TCP too, where sipp listens.
 */
function transportOf(transport: SipTransport | undefined): { args: string[]; edit: (xml: string) => string } {
  if (transport !== 'tcp') return { args: [], edit: (xml) => xml };
  return { args: ['-t', 't1'], edit: (xml) => xml.replaceAll('@[local_ip]:[local_port]>', '@[local_ip]:[local_port];transport=tcp>') };
}

/** Fills the driver's [keys] into a scenario: sipp's own -key values are not allowed in attributes such as timeouts. */
function scenario(name: string, scratch: string, keys: Record<string, string>, edit: (xml: string) => string = (x) => x, transport?: SipTransport): string {
  let xml = transportOf(transport).edit(edit(readFileSync(path.join(DIR, name), 'utf8')));
  for (const [k, v] of Object.entries(keys)) xml = xml.replaceAll(`[${k}]`, v);
  const file = path.join(scratch, `${process.pid}-${Math.random().toString(36).slice(2)}-${name}`);
  writeFileSync(file, xml);
  return file;
}

/** A key's RFC 2833 events, as sipp ships them (dtmf_2833_<key>.pcap). */
export const keyPcap = (key: string) => path.join(PCAP_DIR, `dtmf_2833_${PCAP_KEYS[key] ?? key}.pcap`);

/**
 * When the caller presses its keys (ms after answer), and how long sipp waits before its hang-up timer starts.
 * The driver sends the keys from the caller's RTP socket; sipp only pauses for them.
 */
export function keySchedule(plan: CallerPlan): { keys: Array<{ at: number; key: string }>; ms: number } {
  const keys: Array<{ at: number; key: string }> = [];
  let ms = 0;
  if (plan.gatherInput?.length) {
    ms += FIRST_KEY_MS;
    for (const entry of plan.gatherInput) {
      for (const key of entry) {
        keys.push({ at: ms, key });
        ms += KEY_GAP_MS;
      }
      ms += ENTRY_GAP_MS;
    }
  }
  return { keys, ms };
}

export interface CallerOptions {
  target: string;
  localPort: number;
  rtpPort: number;
  from: string;
  to: string;
  plan: CallerPlan;
  auth?: { username: string; password: string };
  scratch: string;
  /** An SDP without telephone-event: the caller's keys are tones in its audio (the driver sends them). */
  inband?: boolean;
  /** Have sipp log the call's INVITE → 200 OK time into the scratch dir (read it with inviteToOkMs). */
  traceRtt?: boolean;
  /** 'tcp': one TCP connection (sipp -t t1). UDP when absent. */
  transport?: SipTransport;
  /** Once answered, the caller asks the platform to transfer it there (REFER), expects 603 Decline, and hangs up. */
  referTo?: string;
  /** The caller expects a REFER naming this target (a regular expression), accepts it and reports the transfer done. */
  referredTo?: string;
  /**
   * When told (askTransfer), the caller asks the platform for a blind transfer there (REFER) and expects it done:
   * 202, NOTIFY 100, NOTIFY 200 (its exit code says whether all came), then the platform's BYE.
   */
  transferTo?: string;
  /** Once answered, the caller sends these keys as SIP INFO (application/dtmf-relay), one a second after the answer, then 250 ms apart. */
  infoKeys?: string;
  /** The INVITE's request-URI user, when it is not `to` (a provider calling the Contact it registered, To the number). */
  requestUser?: string;
}

/** The caller's SDP offering audio only, no telephone-event (payload type 101): keys can only be tones in the audio. */
const withoutTelephoneEvent = (xml: string) => xml.replace('RTP/AVP 8 101', 'RTP/AVP 8').replace(/\n.*a=(rtpmap|fmtp):101 .*/g, '');

/** transfer.part for one side of a dialog: where its REFER goes, its From and To, its CSeq. */
function transferPart(target: string, dialog: { requestUri: string; from: string; to: string; cseq: number }): string {
  return readFileSync(path.join(DIR, 'transfer.part'), 'utf8')
    .replace('REFER_REQUEST_URI', dialog.requestUri).replace('REFER_FROM', dialog.from).replace('REFER_TO', dialog.to)
    .replace('REFER_CALL_ID', '[call_id]').replace('REFER_CSEQ', String(dialog.cseq)).replace('REFER_TARGET', target);
}

/** The caller's keys as in-dialog INFO requests (a carrier set for SIP INFO DTMF), CSeqs from `firstCseq`. */
function infoPart(keys: string, firstCseq: number): string {
  return `<pause milliseconds="1000"/>${[...keys].map((key, i) => `${i ? '<pause milliseconds="250"/>' : ''}
  <send retrans="500">
    <![CDATA[
      INFO sip:[service]@[remote_ip]:[remote_port] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: <sip:[caller]@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
      To:[$dialog_to]
      Call-ID: [call_id]
      CSeq: ${firstCseq + i} INFO
      Max-Forwards: 70
      Content-Type: application/dtmf-relay
      Content-Length: [len]

      Signal=${key}
      Duration=160
    ]]>
  </send>
  <recv response="200"/>`).join('')}`;
}

/** uac.xml filled in for one caller plan; `hangupMs` is how long it stays after its keys. */
function callerScenario(o: Omit<CallerOptions, 'target' | 'localPort' | 'to'>): { file: string; hangupMs: number } {
  const media = keySchedule(o.plan);
  const cseq = o.auth ? 2 : 1;
  const hangupMs = o.plan.hangupAfterMs === undefined ? WAIT_FOR_BYE_MS : Math.max(1, o.plan.hangupAfterMs - media.ms);
  const refer = o.referTo ? readFileSync(path.join(DIR, 'refer.part'), 'utf8').replace('REFER_CSEQ', String(cseq + 1))
    : o.referredTo ? readFileSync(path.join(DIR, 'refer-in.part'), 'utf8').replace('NOTIFY_CSEQ', String(cseq + 1)).replaceAll('REFER_TARGET', o.referredTo)
      : o.transferTo ? transferPart(o.transferTo, {
        requestUri: 'sip:[service]@[remote_ip]:[remote_port]', from: '<sip:[caller]@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]', to: '[$dialog_to]', cseq: cseq + 1,
      }) : '';
  const file = scenario('uac.xml', o.scratch, {
    caller: o.from, listen_rtp: String(o.rtpPort), hangup_ms: String(hangupMs),
    auth_user: o.auth?.username ?? '', auth_pass: o.auth?.password ?? '', refer_to: o.referTo ?? '',
  }, (xml) => (o.inband ? withoutTelephoneEvent(xml) : xml)
    .replace('INVITE sip:[service]@', `INVITE sip:${o.requestUser ?? '[service]'}@`)
    .replace('<!-- CHALLENGE -->', o.auth ? readFileSync(path.join(DIR, 'challenge.part'), 'utf8') : '')
    .replace('<!-- MEDIA -->', `${media.ms > 0 ? `<pause milliseconds="${media.ms}"/>` : ''}${o.infoKeys ? infoPart(o.infoKeys, cseq + 1) : ''}${refer}`)
    .replaceAll('CSEQ ACK', `${cseq} ACK`)
    .replace('BYE_CSEQ', String(cseq + (o.infoKeys?.length ?? 0) + (o.referTo || o.referredTo || o.transferTo ? 2 : 1))), o.transport);
  return { file, hangupMs };
}

export interface CallerRun extends SippRun {
  /**
   * When the caller received the platform's BYE (ms since the epoch, from sipp's message log), or null if none
   * came: what "the caller was hung up" means, without the time sipp then takes to finish and exit.
   */
  byeReceivedAt(): number | null;
}

export async function runCaller(o: CallerOptions): Promise<CallerRun> {
  const { file, hangupMs } = callerScenario(o);
  const messages = path.join(o.scratch, `caller-${o.localPort}-${Date.now()}.msg`);
  const sipp = run([
    o.target, '-sf', file, '-m', '1', '-i', '127.0.0.1', '-p', String(o.localPort), '-mi', '127.0.0.1', '-mp', String(await sippMediaPort()),
    '-s', o.to, '-timeout', `${Math.ceil(hangupMs / 1000) + 60}s`, '-timeout_error', '-nostdin', '-trace_msg', '-message_file', messages,
    ...(o.traceRtt ? ['-trace_rtt', '-rtt_freq', '1'] : []), ...transportOf(o.transport).args,
  ], hangupMs + 90_000, o.scratch);
  return { ...sipp, byeReceivedAt: () => receivedAt(messages, 'BYE') };
}

/**
 * When sipp first received a `method` request, from its message log: each message there follows a line of dashes
 * and sipp's local time ("2026-11-28 04:27:11.669342"), then "UDP message received [313] bytes :" and a blank line.
 */
function receivedAt(file: string, method: string): number | null {
  if (!existsSync(file)) return null;
  for (const block of readFileSync(file, 'utf8').split(/^-{10,} /m)) {
    const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}\.\d{3})\d*\n[^\n]*message received[^\n]*\n\s*(\S+)/.exec(block);
    // sipp writes its local time, as a date without a zone is read here.
    if (m?.[3] === method) return new Date(`${m[1]}T${m[2]}`).getTime();
  }
  return null;
}

export interface LoadResult { successful: number; failed: number; output: string }

/**
 * Load (bench/sip.ts): `count` caller calls at `rate` per second from one sipp on `localPort`, each waiting for
 * the platform's BYE, or hanging up itself after `hangupAfterMs` (30 s); every call's media goes to `rtpPort`. All
 * `count` calls may be up at once (at least 10 s of calls: bench/conference.ts holds them all). Bounded: sipp stops
 * after `count / rate + 20` s, or 10 s past a longer `hangupAfterMs`.
 */
export async function runLoad(o: { target: string; localPort: number; rtpPort: number; to: string; rate: number; count: number; scratch: string; hangupAfterMs?: number }): Promise<LoadResult> {
  const { file } = callerScenario({ rtpPort: o.rtpPort, from: '+15557770002', plan: { hangupAfterMs: o.hangupAfterMs ?? 30_000 }, scratch: o.scratch });
  const limitMs = (o.count / o.rate) * 1000 + Math.max(20_000, (o.hangupAfterMs ?? 0) + 10_000);
  const sipp = run([
    o.target, '-sf', file, '-r', String(o.rate), '-m', String(o.count), '-l', String(Math.max(o.rate * 10, o.count)), '-i', '127.0.0.1',
    '-p', String(o.localPort), '-mi', '127.0.0.1', '-mp', String(await sippMediaPort()), '-s', o.to, '-nostdin',
    '-timeout', `${Math.ceil(limitMs / 1000)}s`,
  ], limitMs + 10_000);
  await sipp.exited;
  const output = sipp.output();
  // The last statistics screen sipp printed (error lines may follow it).
  const cumulative = (label: string) => Number([...output.matchAll(new RegExp(`${label}\\s*\\|\\s*\\d+\\s*\\|\\s*(\\d+)`, 'g'))].at(-1)?.[1] ?? Number.NaN);
  return { successful: cumulative('Successful call'), failed: cumulative('Failed call'), output };
}

/** INVITE → 200 OK of a finished one-call run with `traceRtt`, in ms (sipp's rtd, from its `_rtt.csv`). */
export function inviteToOkMs(sipp: SippRun, scratch: string): number | null {
  const file = readdirSync(scratch).find((f) => f.endsWith(`_${sipp.pid}_rtt.csv`));
  if (!file) return null;
  // Data lines carry the date in ms, then the response time in ms, then the rtd's name: the second number is it.
  const numbers = readFileSync(path.join(scratch, file), 'utf8').split('\n')
    .map((l) => l.split(';').map((f) => f.trim()).filter((f) => f !== '' && Number.isFinite(Number(f))).map(Number))
    .find((fields) => fields.length >= 2);
  const ms = numbers ? numbers[1]! : Number.NaN;
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Tells a call's sipp to hang up now: a NOTIFY in its call (Call-ID `callId`) makes uac.xml and uas.xml send BYE
 * (sipp has no other way to be told mid-call). Killed if it has not finished within 5 s (e.g. told before the call
 * was answered).
 */
async function hangUpSipp(sipp: SippRun, localPort: number, callId: string): Promise<void> {
  await tellSipp(localPort, callId, 'hangup');
  const timer = setTimeout(() => sipp.kill(), 5_000);
  await sipp.exited;
  clearTimeout(timer);
}

/** The driver's NOTIFY in a call of the sipp on `localPort` (Call-ID `callId`): the cue its scenario waits at. */
async function tellSipp(localPort: number, callId: string, event: 'hangup' | 'transfer'): Promise<void> {
  const socket = createSocket('udp4');
  const notify = [
    `NOTIFY sip:driver@127.0.0.1:${localPort} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1;branch=z9hG4bK-${Math.random().toString(36).slice(2)}`,
    'From: <sip:driver@127.0.0.1>;tag=driver', 'To: <sip:party@127.0.0.1>', `Call-ID: ${callId}`, 'CSeq: 1 NOTIFY',
    `Event: ${event}`, 'Max-Forwards: 70', 'Content-Length: 0', '', '',
  ].join('\r\n');
  await new Promise<void>((resolve) => socket.send(notify, localPort, '127.0.0.1', () => resolve()));
  socket.close();
}

const callerCallId = (sipp: SippRun) => `1-${sipp.pid}@127.0.0.1`;

/** The caller (runCaller) hangs up now; its Call-ID is sipp's own for its first call. */
export const hangUpCaller = (sipp: SippRun, localPort: number): Promise<void> => hangUpSipp(sipp, localPort, callerCallId(sipp));

/** The caller (runCaller with transferTo) sends its REFER now. */
export const askCallerToTransfer = (sipp: SippRun, localPort: number): Promise<void> => tellSipp(localPort, callerCallId(sipp), 'transfer');

const PARTY_SCENARIOS: Record<PartyPlan['behavior'], [string, Record<string, string>]> = {
  answer: ['uas.xml', { ring_ms: '500' }],
  busy: ['uas-refuse.xml', { status: '486', reason: 'Busy Here' }],
  fail: ['uas-refuse.xml', { status: '503', reason: 'Service Unavailable' }],
  'no-answer': ['uas-no-answer.xml', {}],
};

/**
 * A dialled party on `localPort`; `calls` > 1 answers that many calls (benchmarks), each by the plan. `ringMs`
 * replaces an answering party's 500 ms of ringing (0: a benchmark's party that answers at once).
 */
export async function runParty(localPort: number, plan: PartyPlan, scratch: string, calls = 1, ringMs?: number): Promise<SippRun> {
  const [name, keys] = PARTY_SCENARIOS[plan.behavior];
  const ring: Record<string, string> = ringMs === undefined ? {} : { ring_ms: String(ringMs) };
  return runPartyScenario(scenario(name, scratch, { ...keys, ...ring, hangup_ms: String(plan.hangupAfterMs ?? WAIT_FOR_BYE_MS) }), localPort, calls);
}

async function runPartyScenario(file: string, localPort: number, calls: number): Promise<SippRun> {
  return run(['-sf', file, '-m', String(calls), '-i', '127.0.0.1', '-p', String(localPort), '-mi', '127.0.0.1', '-mp', String(await sippMediaPort()),
    '-nostdin', '-timeout', '200s'], 210_000);
}

/** A far end that refuses each of `calls` INVITEs at once with `status` (a carrier gateway's 404, 408, 503, 603). */
export async function runRefuser(localPort: number, status: number, reason: string, scratch: string, calls = 1): Promise<SippRun> {
  return runPartyScenario(scenario('uas-refuse.xml', scratch, { status: String(status), reason }), localPort, calls);
}

export interface PartyRun extends SippRun {
  /** The party hangs up now (its call answered), or is killed within 5 s. */
  hangup(): Promise<void>;
  /** A party run with transferTo sends its REFER now (its call answered). */
  transfer(): Promise<void>;
  /** Every SIP message the party sent and received so far, as sipp logged them. */
  messages(): string;
}

/**
 * An answering party whose audio is a test's RTP socket (`rtpPort`, e.g. an RtpRecorder) instead of sipp's pcap: the
 * test sends it a tone and measures what it hears. It rings `ringMs`, answers with `codec`, and talks until the
 * platform's BYE or its hangup().
 */
export async function runRtpParty(
  localPort: number, rtpPort: number, scratch: string, o: { ringMs?: number; codec?: G711; transferTo?: string; challenge?: DigestChallenge } = {},
): Promise<PartyRun> {
  const pt = o.codec === 'PCMU' ? '0' : '8';
  // With transferTo (see CallerOptions), the party's REFER is its first request in the dialog: its own BYE comes second.
  const referPart = o.transferTo ? transferPart(o.transferTo, { requestUri: '[$peer_contact]', from: '[$ack_to]', to: '[$ack_from]', cseq: 1 }) : '';
  const edit = (xml: string) => xml
    .replace('m=audio [media_port] RTP/AVP 8 101', `m=audio ${rtpPort} RTP/AVP ${pt} 101`)
    .replace('a=rtpmap:8 PCMA/8000', `a=rtpmap:${pt} ${o.codec ?? 'PCMA'}/8000`)
    .replace(/<nop>\s*<action><exec play_pcap_audio="[^"]*"\/><\/action>\s*<\/nop>/, '')
    .replace('<!-- TRANSFER -->', referPart)
    .replace('CSeq: 1 BYE', `CSeq: ${referPart ? 2 : 1} BYE`);
  const file = scenario('uas.xml', scratch, { ring_ms: String(o.ringMs ?? 500), hangup_ms: String(WAIT_FOR_BYE_MS) },
    (xml) => (o.challenge ? challenged(o.challenge, edit(xml)) : edit(xml)));
  // The platform's Call-ID, for hangup(), is read from the messages sipp logs (it writes each one through at once).
  const messages = path.join(scratch, `party-${localPort}-${Date.now()}.msg`);
  const sipp = run(['-sf', file, '-m', '1', '-i', '127.0.0.1', '-p', String(localPort), '-mi', '127.0.0.1', '-mp', String(await sippMediaPort()),
    '-nostdin', '-timeout', '200s', '-trace_msg', '-message_file', messages], 210_000);
  const callId = () => (existsSync(messages) ? /^Call-ID:\s*(\S+)/mi.exec(readFileSync(messages, 'utf8'))?.[1] : undefined);
  const hangup = async () => {
    const id = callId();
    if (id) await hangUpSipp(sipp, localPort, id);
    else { sipp.kill(); await sipp.exited; }
  };
  const transfer = async () => {
    const id = callId();
    if (!id) throw new Error('the party has no call to transfer');
    await tellSipp(localPort, id, 'transfer');
  };
  return { ...sipp, hangup, transfer, messages: () => (existsSync(messages) ? readFileSync(messages, 'utf8') : '') };
}

/** A far end that wants digest credentials (a carrier's gateway): it answers the first INVITE with a 407. */
export interface DigestChallenge { realm: string; nonce: string }

/**
 * The 407 exchange put before an answering party's INVITE; the INVITE that comes back is answered whatever it
 * carries (sipp's verifyauth reads only Authorization, not Proxy-Authorization), so the test checks its credentials
 * from the party's messages.
 */
function challenged(c: DigestChallenge, xml: string): string {
  return xml.replace(/^ {2}<recv request="INVITE" crlf="true">/m, (first) => `  <recv request="INVITE" crlf="true"/>
  <send>
    <![CDATA[
      SIP/2.0 407 Proxy Authentication Required
      [last_Via:]
      [last_From:]
      [last_To:];tag=[pid]SIPpTag00[call_number]
      [last_Call-ID:]
      [last_CSeq:]
      Proxy-Authenticate: Digest realm="${c.realm}", nonce="${c.nonce}", algorithm=MD5
      Content-Length: 0
    ]]>
  </send>
  <recv request="ACK"/>
${first}`);
}

/** One REGISTER with digest credentials; exit code 0 means the registrar accepted them. */
export async function runRegister(target: string, localPort: number, auth: { username: string; password: string }, scratch: string, transport?: SipTransport): Promise<SippRun> {
  const file = scenario('register.xml', scratch, { auth_user: auth.username, auth_pass: auth.password }, undefined, transport);
  return run([target, '-sf', file, '-m', '1', '-i', '127.0.0.1', '-p', String(localPort), '-nostdin', '-timeout', '20s', '-timeout_error',
    ...transportOf(transport).args], 30_000);
}

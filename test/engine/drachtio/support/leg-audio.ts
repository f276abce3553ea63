// What each party of a call with a dialled leg hears, packet by packet: every party sends its own tone, and each
// listener's 20 ms packets are checked for the tones it should hear (Goertzel share) and for the same tones at six
// times their frequency, the signature of 8 kHz audio taken for 48 kHz when a leg joins a room before its answered
// codec is in force (one 20 ms burst every 120 ms at 6× the pitch).
import type { Test } from 'tap';
import { toneShare } from '../../../helpers/tone.js';
import { freePort } from '../../../helpers/server-process.js';
import { udpPortTaken, type RealDriver } from '../../../engine-suite/real-driver.js';
import type { G711 } from '../../../engine-suite/real-rtp.js';
import { tonePhone, type PhoneTiming, type TonePhone } from '../../../engine-suite/rtp-phone.js';
import { hangUpCaller, runCaller, runRegister, runRtpParty, type PartyRun } from '../../../engine-suite/real-sipp.js';
import { carrierAtAddress } from '../../../../src/store/carriers.js';

/** Calls per path (`LEG_AUDIO_CALLS` overrides): the defect showed in some calls and not others. */
export const CALLS = Number(process.env.LEG_AUDIO_CALLS ?? 20);
export const CALLER_HZ = 1000;
export const WAIT_MS = 20_000;

/** A request to the preview API (HTTPS as the trusted proxy says). */
export const v1 = (d: RealDriver, method: string, path: string, body?: Record<string, unknown>) =>
  d.h.request(method, path, { ...(body ? { body } : {}), headers: { 'x-forwarded-proto': 'https' } });

const PACKET = 160;

/** What a listener heard so far, 8 kHz samples (a TonePhone, an RtpRecorder). */
export interface Ear {
  samples(): Float32Array;
  /** Where its packets came from, if it can tell (a TonePhone): said when it heard too little. */
  sources?(): Promise<string>;
  /** When each packet it heard arrived, if it can tell (a TonePhone): to lay its packets beside a sender's stalls. */
  timing?(): Promise<PhoneTiming | null>;
}

/** The phones saying the tones a listener should hear, by tone: whose stalls excuse which missing tone. */
export type Senders = Record<number, Pick<TonePhone, 'timing'>>;

/**
 * Whether the listener's packet `packet` (its index in the listener's samples) may lack tone `hz` because the phone
 * saying it stalled then (see excuses()).
 */
export type Excused = (packet: number, hz: number) => boolean;
/** A tone alone has a share near 1, each of two mixed near 0.5: above this it is present in the packet. */
const PRESENT = 0.2;
/**
 * Two seconds of packets measured, from the onset of the expected tones: at 95 %, room for the odd frame a loaded
 * machine loses (seen: one to three in a row), none for a defect that costs one frame in six.
 */
export const MEASURED_PACKETS = 100;
const NYQUIST = 4000;

export interface PacketTones {
  /** Packets measured (MEASURED_PACKETS, unless the listener heard no expected tone in time). */
  packets: number;
  /** Per expected tone, the share of measured packets that carry it. */
  heard: Record<number, number>;
  /** Packets, heard at any time after the mark, that carry an expected tone at 6× its frequency. */
  sixfold: number;
  /** Where those packets were, counted in packets from the onset of the expected tones (negative: before it). */
  sixfoldAt?: number[];
  /** Per tone that must not be heard, the share of measured packets that carry it. */
  leaked: Record<number, number>;
  /**
   * Per expected tone, the measured packets that lacked it while the phone saying it was stalled (see excuses()):
   * left out of that tone's share, and said.
   */
  excused?: Record<number, number>;
  /**
   * Measured packets without any expected tone, split by what they held instead: near silence (a frame lost or
   * concealed on the way) or sound (something else: a garbled or foreign signal). Says what a failing call lost.
   */
  missing?: { silent: number; sound: number };
  /** Where the missing packets were: runs of them, as first-last packet indexes of the measured window ("12-20"). */
  gaps?: string[];
  /** For a listener that heard too little or missed packets: where its packets came from and where it talks to. */
  sources?: string;
}

const carries = (packet: Float32Array, hz: number) => toneShare(packet, hz) > PRESENT;

/** Below this RMS (about -46 dBFS; the test tones play at -10 dBFS or louder) a packet is taken as silence. */
const SILENCE_RMS = 0.005;
const rms = (packet: Float32Array) => Math.sqrt(packet.reduce((sum, s) => sum + s * s, 0) / packet.length);

/** Consecutive packets that carry every expected tone before measuring starts: a prompt's speech is not a tone. */
const ONSET = 3;

const carriesAll = (samples: Float32Array, at: number, tones: number[]) => tones.every((hz) => carries(samples.subarray(at, at + PACKET), hz));

/** Index of the first of ONSET packets in a row, at or after `from`, carrying every tone of `tones`; or -1. */
function onset(samples: Float32Array, from: number, tones: number[]): number {
  let run = 0;
  for (let at = from; at + PACKET <= samples.length; at += PACKET) {
    run = carriesAll(samples, at, tones) ? run + 1 : 0;
    if (run === ONSET) return at - (ONSET - 1) * PACKET;
  }
  return -1;
}

/**
 * Measures MEASURED_PACKETS packets of `samples` from the onset of `tones` (after sample `from`); packets at 6× an
 * expected tone are counted over everything after `from`, heard or not. A packet lacking a tone that `excused`
 * excuses is left out of that tone's share.
 */
export function packetTones(samples: Float32Array, from: number, tones: number[], absent: number[] = [], excused: Excused = () => false): PacketTones {
  const sixfoldFrom: number[] = [];
  for (let at = from; at + PACKET <= samples.length; at += PACKET) {
    const packet = samples.subarray(at, at + PACKET);
    if (tones.some((hz) => hz * 6 < NYQUIST && carries(packet, hz * 6))) sixfoldFrom.push(at);
  }
  const sixfold = sixfoldFrom.length;
  const start = onset(samples, from, tones);
  const sixfoldAt = sixfoldFrom.map((at) => (at - (start < 0 ? from : start)) / PACKET);
  const heard: Record<number, number> = Object.fromEntries(tones.map((hz) => [hz, 0]));
  const leaked: Record<number, number> = Object.fromEntries(absent.map((hz) => [hz, 0]));
  if (start < 0) return { packets: 0, heard, sixfold, sixfoldAt, leaked };
  let packets = 0;
  const excusedCount: Record<number, number> = Object.fromEntries(tones.map((hz) => [hz, 0]));
  const missing = { silent: 0, sound: 0 };
  const gaps: string[] = [];
  let gapFrom = -1;
  const closeGap = (upTo: number) => {
    if (gapFrom >= 0) gaps.push(gapFrom === upTo ? `${gapFrom}` : `${gapFrom}-${upTo}`);
    gapFrom = -1;
  };
  for (let at = start; packets < MEASURED_PACKETS && at + PACKET <= samples.length; at += PACKET, packets++) {
    const packet = samples.subarray(at, at + PACKET);
    const carried = tones.filter((hz) => carries(packet, hz));
    for (const hz of carried) heard[hz]! += 1;
    for (const hz of absent) if (carries(packet, hz)) leaked[hz]! += 1;
    const lacking = tones.filter((hz) => !carried.includes(hz));
    const unexcused = lacking.filter((hz) => !excused(at / PACKET, hz));
    for (const hz of lacking) if (!unexcused.includes(hz)) excusedCount[hz]! += 1;
    if (carried.length === 0 && unexcused.length > 0) {
      missing[rms(packet) < SILENCE_RMS ? 'silent' : 'sound']++;
      if (gapFrom < 0) gapFrom = packets;
    } else closeGap(packets - 1);
  }
  closeGap(packets - 1);
  for (const hz of tones) heard[hz] = packets - excusedCount[hz]! > 0 ? heard[hz]! / (packets - excusedCount[hz]!) : 0;
  for (const hz of absent) leaked[hz] = packets ? leaked[hz]! / packets : 0;
  return { packets, heard, sixfold, sixfoldAt, leaked, excused: excusedCount, missing, gaps };
}

/**
 * How long after a sender's stall ends its listeners may still lack its tone: the late frames came in a burst,
 * which the far end plays out (or drops) over about as long again as the stall, then a mixing frame and slack.
 */
const STALL_SHADOW_MS = 100;

/**
 * What the phones that say a listener's tones excuse: a packet the listener heard while the phone saying a tone
 * was stalled (frames sent over 40 ms late, a loaded machine starving its thread), or in the stall's shadow, may
 * lack that tone; the platform could not forward what was not sent in time. Nothing is excused for a listener or
 * sender that cannot say when (not a TonePhone).
 */
async function excuses(rtp: Ear, senders: Senders): Promise<Excused> {
  const heardAt = await rtp.timing?.();
  if (!heardAt) return () => false;
  const shadows = new Map<number, Array<[number, number]>>();
  for (const [hz, phone] of Object.entries(senders)) {
    const timing = await phone.timing();
    if (timing) shadows.set(Number(hz), timing.stalls.map(([due, sent]) => [due, sent + (sent - due) + STALL_SHADOW_MS]));
  }
  return (packet, hz) => {
    const at = heardAt.arrivals[packet];
    return at !== undefined && (shadows.get(hz) ?? []).some(([from, to]) => at >= from && at <= to);
  };
}

/**
 * Waits (at most `ms`) until `rtp` has MEASURED_PACKETS packets after the onset of `tones` (counted from sample
 * `from`), then measures them, `absent` being tones this listener must not hear; `senders`, the phones saying
 * `tones`, excuse what they did not send in time.
 */
export async function listenFor(rtp: Ear, from: number, tones: number[], absent: number[] = [], opts: { ms?: number; senders?: Senders } = {}): Promise<PacketTones> {
  const deadline = Date.now() + (opts.ms ?? 20_000);
  for (;;) {
    const samples = rtp.samples();
    const start = onset(samples, from, tones);
    if ((start >= 0 && samples.length - start >= MEASURED_PACKETS * PACKET) || Date.now() > deadline) {
      const measured = packetTones(samples, from, tones, absent, await excuses(rtp, opts.senders ?? {}));
      // Short, or with packets missing: where its packets came from (a second stream interleaved would show).
      const lacking = measured.packets < MEASURED_PACKETS || (measured.missing?.silent ?? 0) + (measured.missing?.sound ?? 0) > 0;
      return lacking && rtp.sources ? { ...measured, sources: await rtp.sources() } : measured;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves once `rtp` hears the onset of `tones` after sample `from` (false after `ms`): a new member is in the room. */
export async function heardOnset(rtp: Ear, from: number, tones: number[], ms = 20_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (onset(rtp.samples(), from, tones) < 0) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** One line per listener and call: what it heard, for the test's output and its failure messages. */
export function describe(who: string, m: PacketTones): string {
  const shares = Object.entries(m.heard).map(([hz, share]) => `${hz} Hz in ${(share * 100).toFixed(0)} %`).join(', ');
  const leaks = Object.entries(m.leaked).map(([hz, share]) => `, ${hz} Hz (not for it) in ${(share * 100).toFixed(0)} %`).join('');
  const lost = m.missing && m.missing.silent + m.missing.sound > 0
    ? ` (without it: ${m.missing.silent} near silent, ${m.missing.sound} other sound, at packets ${m.gaps?.join(', ')})` : '';
  const where = m.sixfold > 0 && m.sixfoldAt ? ` (packets ${m.sixfoldAt.slice(0, 8).join(', ')} from the onset)` : '';
  const excused = Object.entries(m.excused ?? {}).filter(([, n]) => n > 0).map(([hz, n]) => `${n} without ${hz} Hz while its phone was stalled`);
  const left = excused.length > 0 ? ` (left out of the shares: ${excused.join(', ')})` : '';
  return `${who}: ${m.packets} packets, ${shares}${lost}${left}${leaks}, ${m.sixfold} at 6× pitch${where}${m.sources ? ` (${m.sources})` : ''}`;
}

/**
 * How late each sender's frames went out, said with a failing call: a listener's gap is the platform's only if the
 * phone whose tone is missing sent on time (a loaded machine can starve a phone's thread).
 */
export async function sendersReport(senders: Record<string, Pick<TonePhone, 'lateness'>>): Promise<string> {
  const lines = await Promise.all(Object.entries(senders).map(async ([who, phone]) => `${who}: ${await phone.lateness()}`));
  return `senders: ${lines.join('; ')}`;
}

/** Of the measured packets, at most this share may carry a tone the listener must not hear (none is mixed for it). */
const LEAK = 0.02;
/**
 * At most this many measured packets may be left out of a tone's share for its phone's stalls: a call whose sender
 * stalled more than that says too little of the platform, and fails.
 */
const MAX_EXCUSED = 20;

/**
 * Tallies calls whose every listener heard every expected tone in ≥ 95 % of packets (those lacking it while its
 * phone was stalled left out, at most MAX_EXCUSED), nothing at 6× its pitch, and no tone that is not for it.
 */
export function tally(t: Test) {
  const bad: string[] = [];
  let calls = 0;
  return {
    /** `why`: what else the test knows of the call, said with it when it failed. */
    record(label: string, listeners: Array<[string, PacketTones]>, why?: string): void {
      calls++;
      const lines = listeners.map(([who, m]) => describe(who, m));
      const good = listeners.every(([, m]) => m.packets === MEASURED_PACKETS && m.sixfold === 0
        && Object.values(m.heard).every((s) => s >= 0.95) && Object.values(m.leaked).every((s) => s <= LEAK)
        && Object.values(m.excused ?? {}).every((n) => n <= MAX_EXCUSED));
      if (!good) bad.push(`${label}: ${lines.join('; ')}${why ? `; ${why}` : ''}`);
      t.comment(`${label}: ${lines.join('; ')}`);
    },
    check(path: string): void {
      t.same(bad, [], `${path}: every party heard every tone it should in ≥ 95 % of the packets its phone sent in time, none at 6× pitch, in ${calls - bad.length} of ${calls} calls`);
    },
  };
}

/**
 * A phone on `port` that answers one call with `codec` after ringing `ringMs`, saying `hz` from its first packet;
 * `sipp.hangup()` ends its call.
 */
async function answerOnce(t: Test, d: RealDriver, port: number, hz: number, codec: G711, ringMs = 200): Promise<{ phone: TonePhone; sipp: PartyRun }> {
  const phone = await tonePhone(hz, codec);
  const sipp = await runRtpParty(port, phone.port, d.scratch, { codec, ringMs });
  t.teardown(() => { sipp.kill(); phone.close(); });
  await udpPortTaken(port);
  return { phone, sipp };
}

/**
 * A SIP phone registered with a trunk's credentials (an agent's seat) that answers each call with a tone. It
 * registers again before each call, as a phone refreshes its binding: the scenario asks for 120 s, and a path's
 * 20 calls take longer.
 */
export async function sipSeat(t: Test, d: RealDriver, trunk: { username: string; password: string }) {
  const port = await freePort();
  const register = async () => {
    const reg = await runRegister(d.sipTarget, port, trunk, d.scratch);
    if ((await reg.exited) !== 0) throw new Error(`seat REGISTER refused: ${reg.output().slice(-500)}`);
  };
  let current: { sipp: PartyRun; phone: TonePhone } | null = null;
  return {
    /** Answers the next call; what it hears is the returned phone's. */
    async answerNext(hz: number, codec: G711): Promise<TonePhone> {
      if (current) {
        current.sipp.kill();
        await current.sipp.exited;
        current.phone.close();
      }
      await register();
      current = await answerOnce(t, d, port, hz, codec);
      return current.phone;
    },
    /** What the seat's sipp printed for its current call, for a failure message. */
    output: () => current?.sipp.output().slice(-600) ?? '(no call yet)',
  };
}

/**
 * A phone behind a carrier route of its own for `number` (a customer, a supervisor, a participant) that answers one
 * call with a tone; `sipp.hangup()` ends its call (once measured, not after a fixed time a loaded machine may need
 * for the joining).
 */
export async function toneParty(t: Test, d: RealDriver, number: string, hz: number, codec: G711, ringMs?: number): Promise<{ phone: TonePhone; sipp: PartyRun }> {
  const port = await freePort();
  // Named after the number, not the port: a port freed by an earlier party of the same test is often handed out
  // again, and a second carrier of that name was refused ('a carrier named "party-37995" already exists').
  await d.h.store.carriers.add(`party-${number.slice(1)}`, carrierAtAddress('127.0.0.1', port, number));
  return answerOnce(t, d, port, hz, codec, ringMs);
}

/**
 * Why a caller heard no agent, for the failure message: the agent's state, the newest inbound call's last timeline
 * entries, and what the seat's sipp printed. A loaded run once lost every agent from the 11th call on; alone,
 * 14 calls were whole.
 */
export async function whyNoAgent(d: RealDriver, agentSid: string, seat: { output(): string }): Promise<string> {
  const agent = await d.h.store.sql.one<{ status: string; activity: string }>('SELECT status, activity FROM acd_agents WHERE sid = ?', [agentSid]);
  const call = await d.h.store.sql.one<{ sid: string }>("SELECT sid FROM calls WHERE direction = 'inbound' ORDER BY created_at DESC, sid DESC LIMIT 1");
  const timeline = call ? (await d.h.store.calls.timeline(call.sid)).slice(-8).map((e) => `${e.kind} ${JSON.stringify(e.detail)}`) : [];
  return `agent ${JSON.stringify(agent)}; caller's timeline: ${timeline.join(' | ')}; seat sipp: ${seat.output()}`;
}

/** Whether the ACD agent `sid` is idle again (its call over, wrap-up done): read from the store, whichever backend. */
export async function agentIdle(d: RealDriver, sid: string): Promise<boolean> {
  return (await d.h.store.sql.one<{ activity: string }>('SELECT activity FROM acd_agents WHERE sid = ?', [sid]))?.activity === 'idle';
}

/**
 * A caller through a carrier to `to`, saying `hz` (A-law) all call long; `hangup` ends its call and resolves once
 * sipp is done.
 */
export async function toneCaller(t: Test, d: RealDriver, from: string, to: string, hz: number, o: { traceRtt?: boolean } = {}) {
  // Calls come in from any port of 127.0.0.1 (a carrier whose prefix routes none of the tests' numbers out).
  if (!(await d.h.store.carriers.byName('tone-callers'))) await d.h.store.carriers.add('tone-callers', carrierAtAddress('127.0.0.1', null, '+1999'));
  const phone = await tonePhone(hz, 'PCMA');
  const localPort = await freePort();
  const sipp = await runCaller({ target: d.sipTarget, localPort, rtpPort: phone.port, from, to, plan: {}, scratch: d.scratch, ...o });
  t.teardown(() => { sipp.kill(); phone.close(); });
  return { phone, sipp, hangup: async () => { await hangUpCaller(sipp, localPort); phone.close(); } };
}

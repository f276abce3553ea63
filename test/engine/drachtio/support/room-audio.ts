// Who hears whom in a conference room, measured: each caller sends its own tone, and a phase listens for a while
// and reports, per listener, the share of each tone (and of the hold/announce tone) in what it heard.
import type { Test } from 'tap';
import { toneShare } from '../../../helpers/tone.js';
import { rtpRecorder, toneAlaw, type RtpRecorder } from '../../../engine-suite/real-rtp.js';
import { runCaller, type SippRun } from '../../../engine-suite/real-sipp.js';
import type { RealDriver } from '../../../engine-suite/real-driver.js';
import { freePort } from '../../../helpers/server-process.js';
import type { CallLeg, ConferenceMember } from '../../../../src/engine/port.js';
import { carrierAtAddress } from '../../../../src/store/carriers.js';

export const TONES = { a: 500, b: 700, c: 900 } as const;
export const HOLD_HZ = 440;
export type Name = keyof typeof TONES;
export type Heard = Record<Name, Record<Name | 'hold', number>>;

/** Long enough to measure (after a settling margin), short enough to keep the files quick. */
const PHASE_MS = 1_200;
const SETTLE_SAMPLES = 8 * 300;
const HEARD = 0.1;
const SILENT = 0.02;
/** How long a change (a mute, a hold) may take to reach what a listener hears before a phase measures anyway. */
const CHANGE_MS = 5_000;
/** The latest 100 ms: what a listener hears now. */
const RECENT_SAMPLES = 8 * 100;

/**
 * Listens for PHASE_MS and reports what each caller heard, from SETTLE_SAMPLES on. `quiet`: pairs of a listener and a
 * tone a change just took away from it (a mute, a hold): the phase starts once its latest 100 ms lack that tone
 * (CHANGE_MS at most), so audio still on its way when the change was made is not measured. On a loaded machine that
 * took longer than the settling margin (a muted member heard at share 0.028 by another).
 */
export async function phase(callers: Record<Name, { rtp: RtpRecorder }>, quiet: Array<[Name, Name | 'hold']> = []): Promise<Heard> {
  const names = Object.keys(callers) as Name[];
  const gone = () => quiet.every(([listener, tone]) => toneShare(callers[listener].rtp.samples().slice(-RECENT_SAMPLES), tone === 'hold' ? HOLD_HZ : TONES[tone]) < SILENT);
  const deadline = Date.now() + CHANGE_MS;
  while (!gone() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const marks = Object.fromEntries(names.map((n) => [n, callers[n].rtp.samples().length]));
  await new Promise((r) => setTimeout(r, PHASE_MS));
  const out = {} as Heard;
  for (const n of names) {
    const heard = callers[n].rtp.samples().subarray(marks[n]! + SETTLE_SAMPLES);
    out[n] = { a: toneShare(heard, TONES.a), b: toneShare(heard, TONES.b), c: toneShare(heard, TONES.c), hold: toneShare(heard, HOLD_HZ) };
  }
  return out;
}

/**
 * Waits (at most `ms`) until everyone's latest 300 ms carries everyone else's tone: a member's audio may reach the
 * room a little after its join resolves (a relay from another server still starting), and a phase measures a
 * settled room.
 */
export async function untilAllHeard(callers: Record<Name, { rtp: RtpRecorder }>, ms = 5_000): Promise<void> {
  const names = Object.keys(callers) as Name[];
  const deadline = Date.now() + ms;
  const allHeard = () => names.every((listener) => {
    const recent = callers[listener].rtp.samples().slice(-SETTLE_SAMPLES);
    return names.every((speaker) => speaker === listener || toneShare(recent, TONES[speaker]) > HEARD);
  });
  while (!allHeard() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/** Asserts that `listener` hears `tone` (share above 0.1) or does not (below 0.02), naming the measured share. */
export function checker(t: Test) {
  return (heard: Heard, listener: Name, tone: Name | 'hold', expected: boolean, what: string) => {
    const share = heard[listener][tone];
    t.ok(expected ? share > HEARD : share < SILENT, `${what} (${listener} hears ${tone}: share ${share.toFixed(3)})`);
  };
}

export interface RoomCaller { name: Name; rtp: RtpRecorder; sipp: SippRun; leg: CallLeg; member: ConferenceMember }

/**
 * Drives the engine port itself: every incoming call joins `room` instead of running markup. `join(name)` places a
 * sipp caller that, once in the room, sends its own tone; `callers` holds those that joined.
 */
export async function roomCallers(t: Test, d: RealDriver, room: string) {
  await d.h.store.carriers.add('conference-callers', carrierAtAddress('127.0.0.1', null, '+1999'));
  const waiting = new Map<string, (joined: { leg: CallLeg; member: ConferenceMember }) => void>();
  d.engine.onIncomingCall((call) => void (async () => {
    const leg = await call.answer();
    const member = await leg.joinConference(room, { muted: false });
    waiting.get(call.from)?.({ leg, member });
  })());
  const callers = {} as Record<Name, RoomCaller>;
  const join = async (name: Name): Promise<RoomCaller> => {
    const from = `+1555000000${Object.keys(TONES).indexOf(name)}`;
    const joined = new Promise<{ leg: CallLeg; member: ConferenceMember }>((resolve) => waiting.set(from, resolve));
    const rtp = await rtpRecorder();
    t.teardown(() => rtp.close());
    const sipp = await runCaller({ target: d.sipTarget, localPort: await freePort(), rtpPort: rtp.port, from, to: '+15550001000', plan: {}, scratch: d.scratch });
    t.teardown(() => sipp.kill());
    callers[name] = { name, rtp, sipp, ...(await joined) };
    void rtp.sendAudio(toneAlaw(TONES[name], 60_000));
    return callers[name];
  };
  return { callers, join };
}

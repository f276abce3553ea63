// What each party of a call with a dialled leg hears, packet by packet: every party sends its own tone, and each
// listener's 20 ms packets are checked for the tones it should hear (Goertzel share) and for the same tones at six
// times their frequency, the signature of 8 kHz audio taken for 48 kHz when a leg joins a room before its answered
// codec is in force (one 20 ms burst every 120 ms at 6× the pitch).
import type { Test } from 'tap';
import { toneShare } from '../../../helpers/tone.js';
import type { RtpRecorder } from '../../../engine-suite/real-rtp.js';

const PACKET = 160;
/** A tone alone has a share near 1, each of two mixed near 0.5: above this it is present in the packet. */
const PRESENT = 0.2;
/** One second of packets measured, from the first packet that carries an expected tone. */
export const MEASURED_PACKETS = 50;
const NYQUIST = 4000;

export interface PacketTones {
  /** Packets measured (MEASURED_PACKETS, unless the listener heard no expected tone in time). */
  packets: number;
  /** Per expected tone, the share of measured packets that carry it. */
  heard: Record<number, number>;
  /** Packets, heard at any time after the mark, that carry an expected tone at 6× its frequency. */
  sixfold: number;
}

const carries = (packet: Float32Array, hz: number) => toneShare(packet, hz) > PRESENT;

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
 * expected tone are counted over everything after `from`, heard or not.
 */
export function packetTones(samples: Float32Array, from: number, tones: number[]): PacketTones {
  let sixfold = 0;
  for (let at = from; at + PACKET <= samples.length; at += PACKET) {
    const packet = samples.subarray(at, at + PACKET);
    if (tones.some((hz) => hz * 6 < NYQUIST && carries(packet, hz * 6))) sixfold++;
  }
  const start = onset(samples, from, tones);
  const heard: Record<number, number> = Object.fromEntries(tones.map((hz) => [hz, 0]));
  if (start < 0) return { packets: 0, heard, sixfold };
  let packets = 0;
  for (let at = start; packets < MEASURED_PACKETS && at + PACKET <= samples.length; at += PACKET, packets++) {
    const packet = samples.subarray(at, at + PACKET);
    for (const hz of tones) if (carries(packet, hz)) heard[hz]! += 1;
  }
  for (const hz of tones) heard[hz] = packets ? heard[hz]! / packets : 0;
  return { packets, heard, sixfold };
}

/**
 * Waits (at most `ms`) until `rtp` has MEASURED_PACKETS packets after the first one carrying all of `tones` (counted
 * from sample `from`), then measures them.
 */
export async function listenFor(rtp: RtpRecorder, from: number, tones: number[], ms = 15_000): Promise<PacketTones> {
  const deadline = Date.now() + ms;
  for (;;) {
    const samples = rtp.samples();
    const start = onset(samples, from, tones);
    if ((start >= 0 && samples.length - start >= MEASURED_PACKETS * PACKET) || Date.now() > deadline) return packetTones(samples, from, tones);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One line per listener and call: what it heard, for the test's output and its failure messages. */
export function describe(who: string, m: PacketTones): string {
  const shares = Object.entries(m.heard).map(([hz, share]) => `${hz} Hz in ${(share * 100).toFixed(0)} %`).join(', ');
  return `${who}: ${m.packets} packets, ${shares}, ${m.sixfold} at 6× pitch`;
}

/** Tallies calls whose listener heard every expected tone in ≥ 95 % of packets and nothing at 6× its pitch. */
export function tally(t: Test) {
  const bad: string[] = [];
  let calls = 0;
  return {
    record(label: string, listeners: Array<[string, PacketTones]>): void {
      calls++;
      const lines = listeners.map(([who, m]) => describe(who, m));
      const good = listeners.every(([, m]) => m.packets === MEASURED_PACKETS && m.sixfold === 0 && Object.values(m.heard).every((s) => s >= 0.95));
      if (!good) bad.push(`${label}: ${lines.join('; ')}`);
      t.comment(`${label}: ${lines.join('; ')}`);
    },
    check(path: string): void {
      t.same(bad, [], `${path}: every party heard every tone it should in ≥ 95 % of packets, none at 6× pitch, in ${calls - bad.length} of ${calls} calls`);
    },
  };
}

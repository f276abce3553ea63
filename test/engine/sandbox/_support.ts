// Shared set-up for sandbox engine tests: a started engine on a FakeClock, a temp dir, and small readers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeClock } from '../../../src/clock.js';
import type { CallLeg, IncomingCall } from '../../../src/engine/port.js';
import { SandboxEngine, type SimulatedCall, type TranscriptEvent } from '../../../src/engine/sandbox/index.js';

interface Tap { teardown(fn: () => unknown): void }

export interface Sandbox {
  clock: FakeClock;
  engine: SandboxEngine;
  dir: string;
  /** Resolves with the next call delivered to the incoming-call handler. */
  nextIncoming(): Promise<IncomingCall>;
  /** Registers a handler that answers every call, then hands the leg to `script`. */
  answerWith(script: (leg: CallLeg) => Promise<unknown>): void;
}

export async function sandbox(t: Tap): Promise<Sandbox> {
  const clock = new FakeClock(0);
  const engine = new SandboxEngine(clock);
  await engine.start();
  const dir = mkdtempSync(path.join(tmpdir(), 'ringbase-sandbox-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  let waiting: ((call: IncomingCall) => void) | undefined;
  engine.onIncomingCall((call) => { waiting?.(call); });
  return {
    clock,
    engine,
    dir,
    nextIncoming: () => new Promise((resolve) => { waiting = resolve; }),
    answerWith(script) {
      engine.onIncomingCall((call) => { void call.answer().then(script); });
    },
  };
}

/** Transcript events without their timestamps, for order-only assertions. */
export function kinds(call: SimulatedCall): string[] { return call.transcript.map((e) => e.type); }

export function find<T extends TranscriptEvent['type']>(call: SimulatedCall, type: T): Extract<TranscriptEvent, { type: T }>[] {
  return call.transcript.filter((e): e is Extract<TranscriptEvent, { type: T }> => e.type === type);
}

/** Settles a promise-returning operation and reports when (clock time) it settled. */
export function timed<T>(clock: FakeClock, p: Promise<T>): { value?: T; at?: number; done: Promise<void> } {
  const out: { value?: T; at?: number; done: Promise<void> } = { done: Promise.resolve() };
  out.done = p.then((value) => { out.value = value; out.at = clock.now(); });
  return out;
}

export const voice = { voice: 'alice', language: 'en-US' };

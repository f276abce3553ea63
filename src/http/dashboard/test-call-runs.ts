import type { FastifyBaseLogger } from 'fastify';
import { simulateInbound, type SimulationEvent, type SimulationRequest } from '../../calls/simulator.js';
import type { SandboxEngine } from '../../engine/sandbox/index.js';
import type { CallWatch } from '../../calls/watch.js';

/** A dashboard test call: what the page shows while it runs and after it ended. */
export interface TestCallRun {
  request: SimulationRequest;
  callSid: string | null;
  events: SimulationEvent[];
  done: boolean;
  /** The simulation itself failed (not the call): said on the page instead of a transcript that stops short. */
  failure: string | null;
}

/**
 * Test calls run in the background so the page that started one returns at once and polls for the transcript.
 * Each account keeps its latest run (the page shows it until the next one) and runs one at a time.
 */
export class TestCallRuns {
  readonly #latest = new Map<number, TestCallRun>();
  constructor(private readonly engine: SandboxEngine, private readonly watch: CallWatch, private readonly log: FastifyBaseLogger) {}

  latest(accountId: number): TestCallRun | undefined { return this.#latest.get(accountId); }

  running(accountId: number): boolean { return this.#latest.get(accountId)?.done === false; }

  start(accountId: number, request: SimulationRequest): TestCallRun {
    const run: TestCallRun = { request, callSid: null, events: [], done: false, failure: null };
    this.#latest.set(accountId, run);
    simulateInbound(this.engine, this.watch, request, (e) => {
      run.events.push(e);
      if (e.source === 'platform') run.callSid ??= e.call_sid;
    }).then(({ callSid }) => { run.callSid = callSid; }, (err: unknown) => {
      this.log.warn({ err }, 'dashboard test call failed');
      run.failure = 'The test call could not be completed; the error has been logged.';
    }).finally(() => { run.done = true; });
    return run;
  }
}

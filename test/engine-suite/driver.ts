// What the call-flow suite needs from an engine under test. The sandbox driver implements it in-process; the
// real-engine driver (drachtio + FreeSWITCH) implements it with sipp peers and audio checks, so the suite's
// assertions stay on what both can observe: webhook traffic, call records, timelines, recordings.
import type { FarEndAudio } from '../../src/engine/sandbox/index.js';
import type { Harness } from '../helpers/harness.js';

export interface CallerPlan {
  /** Keys typed in answer to each digit collection, in order ("1", "12#"). */
  gatherInput?: string[];
  /** The caller hangs up this long after answer. */
  hangupAfterMs?: number;
  /** How long the caller talks when recorded. */
  speakMs?: number;
  /**
   * Words said to each speech <Gather>, in order: after its prompts, or over them (bargeIn); '' says nothing.
   * Drivers that cannot speak words ignore it.
   */
  speechInput?: Array<string | { text: string; bargeIn: true }>;
}

export interface PartyPlan {
  behavior: 'answer' | 'busy' | 'no-answer' | 'fail';
  hangupAfterMs?: number;
  /** What the party sounds like once it answers (answering-machine detection); drivers that cannot script it ignore it. */
  audio?: FarEndAudio;
}

export interface PlacedCall {
  /** Resolves when the caller's leg has ended. */
  ended: Promise<unknown>;
  /** What the caller heard, when the driver can tell (the sandbox can; a SIP peer hears only audio). */
  heard(): string[] | null;
  /** Resolves true once the caller hears the platform (a sandbox prompt, audio above silence), false if it ends first. */
  hears: Promise<boolean>;
  /** The caller hangs up now. */
  hangup(): void;
  /** When the caller's leg ended as the caller saw it (Date.now() time): a SIP caller, at the BYE it received. */
  endedAt(): Promise<number>;
}

export interface EngineDriver {
  readonly name: string;
  readonly h: Harness;
  /** Simulated milliseconds per real millisecond: long timeouts in flows are cheap on the sandbox. */
  readonly speed: number;
  inbound(from: string, to: string, plan?: CallerPlan): Promise<PlacedCall>;
  /** A call placed by a PBX over a provisioned trunk (authenticated with the trunk's credentials). */
  fromTrunk(trunk: { endpointName: string; password: string }, from: string, to: string, plan?: CallerPlan): Promise<PlacedCall>;
  /** Resolves once calls to `address` are routed to the party (its carrier route stored). */
  party(address: string, plan: PartyPlan): Promise<void>;
  /** An agent's seat: registered with the trunk's credentials, answering the calls it is offered as planned. */
  agentSeat(trunk: { endpointName: string; username: string; password: string }, plan: PartyPlan): Promise<void>;
}

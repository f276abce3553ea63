// SandboxEngine: an in-process EnginePort with no SIP and no audio. Calls are scripted simulations running on
// the injected Clock, so a FakeClock makes every call fully deterministic.
import type { Clock } from '../../clock.js';
import {
  EngineError, type CallSource, type EngineHealth, type EnginePort, type IncomingCallHandler, type OriginateRequest,
  type OriginateResult, type OriginateTarget, type TrunkCredentials,
} from '../port.js';
import { SandboxIncomingCall } from './incoming.js';
import { Line, type Direction, type SandboxFaults } from './line.js';
import { SandboxRooms } from './conference.js';
import { DEFAULT_SPEAK_MS } from './media-timing.js';
import { dial } from './outbound.js';
import { RemoteParty, type CallerScript, type InCallScript, type PartyScript, type SimulatedCall } from './party.js';
import { splitSipUriHeaders } from '../../net/sip-uri-headers.js';

export interface SimulateInboundOptions {
  from: string;
  to: string;
  /** Default: a call from the carrier named 'sandbox'. */
  source?: CallSource;
  caller?: CallerScript;
}

/** The key setParty uses for a target: E.164 number, SIP URI, `client:<identity>` or `trunk:<endpointName>`. */
export function partyAddress(target: OriginateTarget): string {
  switch (target.kind) {
    case 'number': return target.number;
    // The X- headers a URI carries go with the INVITE; the party is the URI without them.
    case 'sip': { const split = splitSipUriHeaders(target.uri); return split.ok ? split.uri : target.uri; }
    case 'client': return `client:${target.identity}`;
    case 'trunk': return `trunk:${target.endpointName}`;
  }
}

const UNSCRIPTED: PartyScript = { behavior: 'answer' };

/** In-process engine for tests, local development and dashboard test calls: no SIP, simulated time. */
export class SandboxEngine implements EnginePort {
  readonly kind = 'sandbox' as const;
  readonly #provisioned = new Map<string, TrunkCredentials>();
  readonly #parties = new Map<string, PartyScript>();
  readonly #partyCalls = new Map<string, RemoteParty[]>();
  readonly #originated: OriginateTarget[] = [];
  readonly #seatsDown = new Set<string>();
  readonly #lines = new Set<Line>();
  #handler: IncomingCallHandler | null = null;
  /** Test-controlled failures; see SandboxFaults. */
  readonly faults: SandboxFaults = { recordingCommand: null };
  /** Conference rooms of this engine's calls (tests ask who hears whom). */
  readonly rooms = new SandboxRooms();
  #nextId = 1;
  #running = false;
  #intake = true;

  constructor(private readonly clock: Clock) {}

  async start(): Promise<void> { this.#running = true; }

  /** Ends every call still in progress, as a real engine going down would. */
  async stop(): Promise<void> {
    this.#running = false;
    for (const line of [...this.#lines]) {
      line.end(line.isAnswered ? { cause: 'normal', by: 'local' } : { cause: 'failed', by: 'local', sipStatus: 503 });
    }
  }

  health(): EngineHealth {
    return { ok: this.#running, detail: this.#running ? 'sandbox engine running' : 'sandbox engine stopped' };
  }

  /** Completes on the next clock tick, like a real SIP layer that acknowledges asynchronously. */
  provisionTrunk(trunk: TrunkCredentials): Promise<void> {
    return new Promise((resolve, reject) => {
      this.clock.setTimeout(() => {
        if (trunk.password === null) return reject(new Error(`no usable password for ${trunk.endpointName}`));
        this.#provisioned.set(trunk.endpointName, trunk);
        resolve();
      }, 0);
    });
  }

  async deprovisionTrunk(endpointName: string): Promise<void> {
    this.#provisioned.delete(endpointName);
  }

  /** Whether a login would be accepted: used by tests and, later, by the sandbox's simulated registrations. */
  acceptsLogin(endpointName: string, password: string): boolean {
    return this.#provisioned.get(endpointName)?.password === password;
  }

  onIncomingCall(handler: IncomingCallHandler): void { this.#handler = handler; }

  async stopIntake(): Promise<void> { this.#intake = false; }

  /** Every seat counts as registered in the sandbox (agents can take calls) unless a test takes it down. */
  async seatRegistered(endpointName: string): Promise<boolean> { return !this.#seatsDown.has(endpointName); }

  setSeatRegistered(endpointName: string, up: boolean): void {
    if (up) this.#seatsDown.delete(endpointName);
    else this.#seatsDown.add(endpointName);
  }

  /** Delivers a scripted call to the incoming-call handler, synchronously; returns the caller's side of it. */
  simulateInbound({ from, to, source = { kind: 'carrier', name: 'sandbox' }, caller = {} }: SimulateInboundOptions): SimulatedCall {
    const handler = this.#handler;
    if (!handler) throw new EngineError('sandbox: no incoming-call handler registered (call onIncomingCall first)');
    const line = this.#open('inbound', from, to, caller);
    const party = new RemoteParty(line, caller);
    // A draining node takes no new call: refused as a SIP server would (503), never handed to the control plane.
    if (!this.#intake) {
      line.end({ cause: 'failed', by: 'local', sipStatus: 503 });
      return party;
    }
    party.giveUpAfter(caller.hangupBeforeAnswerAfterMs === null ? undefined : caller.hangupBeforeAnswerAfterMs ?? caller.hangupAfterMs);
    try {
      handler(new SandboxIncomingCall(line, source));
    } catch (err) {
      line.end({ cause: 'failed', by: 'local', sipStatus: 500 });
      throw err;
    }
    return party;
  }

  /** Scripts whoever answers at `address` (see partyAddress); unscripted addresses answer after 1 s. */
  setParty(address: string, script: PartyScript): void { this.#parties.set(address, script); }

  /** The sandbox's calls live in its process: none outlive it. */
  async releaseOrphans(): Promise<void> {}

  /** Every target the platform asked this engine to dial, in order (what a policy let through). */
  originated(): OriginateTarget[] { return [...this.#originated]; }

  /** Every call placed to `address`, oldest first. */
  partyCalls(address: string): SimulatedCall[] { return [...(this.#partyCalls.get(address) ?? [])]; }

  /** Never rejects: even a malformed request comes back as a failed attempt. */
  async originate(req: OriginateRequest): Promise<OriginateResult> {
    this.#originated.push(req.target);
    try {
      const address = partyAddress(req.target);
      const script = this.#parties.get(address) ?? UNSCRIPTED;
      const line = this.#open('outbound', req.callerId, req.target.kind === 'trunk' ? req.target.number : address, script);
      const calls = this.#partyCalls.get(address) ?? [];
      calls.push(new RemoteParty(line, script));
      this.#partyCalls.set(address, calls);
      return await dial(line, script, req);
    } catch {
      return { answered: false, cause: 'failed' };
    }
  }

  /** The time simulated calls run on (transcripts are timed on it). */
  now(): number { return this.clock.now(); }

  /** Calls in progress (ringing or answered): 0 once every call has ended, for leak checks. */
  activeLegs(): number { return this.#lines.size; }

  #open(direction: Direction, from: string, to: string, script: InCallScript): Line {
    const line = new Line(this.clock, { id: `sbx-${this.#nextId++}`, from, to, direction, speakMs: script.speakMs ?? DEFAULT_SPEAK_MS, audio: script.audio ?? null }, this.faults, this.rooms);
    this.#lines.add(line);
    line.onEnd(() => this.#lines.delete(line));
    return line;
  }
}

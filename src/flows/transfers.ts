// Blind transfers asked from inside a bridged <Dial> (SIP REFER from a trunk, PBX or seat; Twilio's inbound REFER
// with its referUrl): the side that asks leaves, and the number's or trunk's transfer URL is asked what the other
// side, the transferee, does next. Its document runs for the transferee in place of the bridge.
import type { CallLeg, TransferAsked, TransferReport } from '../engine/port.js';
import type { Verb } from '../markup/index.js';
import type { CallSession } from '../calls/session.js';
import type { BridgeWatch } from '../calls/dial.js';
import { requestDocument, type Flow, type WebhookTarget } from './flow.js';
import type { RunMarkup } from './verbs/dial-screen.js';

/** The dialled party, handed its own document by the caller's transfer. */
interface Handover { flow: Flow; verbs: Verb[] }

export class BridgeTransfers {
  #handover: Handover | null = null;
  /** One transfer at a time: a second REFER while one is under way is declined. */
  #busy = false;

  constructor(private readonly flow: Flow, private readonly referTo: WebhookTarget) {}

  /** DialRequest.whileBridged: either side may ask while the bridge lasts. */
  readonly watch = (caller: CallLeg, party: CallSession): BridgeWatch => {
    const partyLeg = party.leg!;
    // A caller whose call runs no markup (a trunk call sent on to `to`) has no document a transfer could replace.
    const fromParty = (asked: TransferAsked) => {
      if (this.flow.session.document.running) void this.#handle(asked, () => this.#transferCaller(party, asked));
      else this.#decline(asked, 'the caller runs no markup a transfer could replace');
    };
    const fromCaller = (asked: TransferAsked) => { void this.#handle(asked, () => this.#transferParty(party, asked)); };
    partyLeg.on('transfer', fromParty);
    caller.on('transfer', fromCaller);
    return {
      end: () => {
        partyLeg.off('transfer', fromParty);
        caller.off('transfer', fromCaller);
        return this.#handover !== null;
      },
    };
  };

  /** After the Dial: the party handed over, if any, runs its document (the caller has left). */
  async runHandover(run: RunMarkup): Promise<boolean> {
    if (!this.#handover) return false;
    const { flow, verbs } = this.#handover;
    await run(flow, verbs, {});
    return true;
  }

  #decline(asked: TransferAsked, reason: string): void {
    this.flow.session.timeline('transfer-declined', { to: asked.target, reason });
    asked.decline();
  }

  async #handle(asked: TransferAsked, transfer: () => Promise<void>): Promise<void> {
    if (this.#busy || this.#handover) return this.#decline(asked, 'another transfer is under way');
    this.#busy = true;
    try {
      await transfer();
    } catch (err) {
      this.flow.session.log.warn({ err }, 'transfer failed');
    } finally {
      this.#busy = false;
    }
  }

  /** The party asks: the caller is the transferee, and the transfer URL's document replaces the Dial. */
  async #transferCaller(party: CallSession, asked: TransferAsked): Promise<void> {
    const { session } = this.flow;
    const report = await this.#accept(asked, party.sid, session.sid);
    const got = await requestDocument(this.flow, this.referTo.url, this.referTo.method, {
      call_sid: session.sid, from: session.call.from, to: session.call.to, direction: session.call.direction, ...this.#params(asked, party.sid),
    });
    if (!got.ok) return this.#failed(asked, report, got.reason);
    if (session.ended || party.ended) return this.#failed(asked, report, 'the call ended meanwhile');
    session.timeline('transfer-done', { to: asked.target, transferee: session.sid });
    await report(200);
    // The redirect ends the Dial, which hangs up the party.
    await session.redirect({ verbs: got.verbs, url: got.url }, { transfer_to: asked.target, url: got.url }, 'transferred');
  }

  /** The caller asks: the party is the transferee; it keeps its line and runs the document once the caller has left. */
  async #transferParty(party: CallSession, asked: TransferAsked): Promise<void> {
    const { session } = this.flow;
    const report = await this.#accept(asked, session.sid, party.sid);
    // The party's own flow: its relative URLs resolve against its documents.
    const flow: Flow = { ...this.flow, session: party, docUrl: null };
    const got = await requestDocument(flow, this.referTo.url, this.referTo.method, {
      call_sid: party.sid, parent_call_sid: session.sid, from: party.call.from, to: party.call.to, direction: party.call.direction,
      ...this.#params(asked, session.sid),
    });
    if (!got.ok) return this.#failed(asked, report, got.reason);
    if (session.ended || party.ended) return this.#failed(asked, report, 'the call ended meanwhile');
    flow.docUrl = got.url;
    this.#handover = { flow, verbs: got.verbs };
    session.timeline('transfer-done', { to: asked.target, transferee: party.sid });
    await report(200);
    await session.hangup('refer-completed');
  }

  async #accept(asked: TransferAsked, by: string, transferee: string): Promise<TransferReport> {
    this.flow.session.timeline('transfer-asked', { to: asked.target, by, transferee, url: this.referTo.url });
    return asked.accept();
  }

  /** Twilio's ReferTransferTarget, snake_case, and who asked. */
  #params(asked: TransferAsked, transferor: string): Record<string, unknown> {
    return { refer_transfer_target: asked.target, referred_by: asked.referredBy, transferor_call_sid: transferor };
  }

  /** The transfer URL gave no document: the far end hears 503, and the bridge goes on. */
  async #failed(asked: TransferAsked, report: TransferReport, reason: string): Promise<void> {
    this.flow.session.timeline('transfer-failed', { to: asked.target, reason });
    await report(503);
  }
}

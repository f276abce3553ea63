import type { ConferenceTarget, DialTarget, DialVerb, QueueTarget } from '../../markup/index.js';
import { dialConference } from './dial-conference.js';
import { dialQueue } from './dial-queue.js';
import type { OriginateTarget } from '../../engine/port.js';
import { dial } from '../../calls/dial.js';
import type { CallSession } from '../../calls/session.js';
import { followAction, type Flow, type Outcome } from '../flow.js';
import { screenParty, type RunMarkup } from './dial-screen.js';
import { BridgeTransfers } from '../transfers.js';
import { MACHINE_DETECTION_DEFAULTS, type MachineDetectionSettings } from '../../media/answering-machine.js';

/** A party the Dial rings (not a conference it joins, nor a queue it takes a caller from). */
type Party = Exclude<DialTarget, ConferenceTarget | QueueTarget>;

function toTarget(t: Party): OriginateTarget {
  switch (t.type) {
    case 'number': return { kind: 'number', number: t.number };
    case 'sip': return { kind: 'sip', uri: t.uri, ...(t.username ? { username: t.username } : {}), ...(t.password ? { password: t.password } : {}) };
    case 'client': return { kind: 'client', identity: t.identity };
  }
}

/**
 * Connects the caller to the first target that answers and is accepted (its sendDigits sent, its screening
 * document run to its end without a hang-up); the action URL hears how it went.
 */
export async function dialVerb(flow: Flow, verb: DialVerb, run: RunMarkup): Promise<Outcome> {
  const { session } = flow;
  const [first] = verb.targets;
  if (first?.type === 'conference') return dialConference(flow, verb, first);
  if (first?.type === 'queue') return dialQueue(flow, verb, first);
  const targets = verb.targets.filter((t): t is Party => t.type !== 'conference' && t.type !== 'queue');
  const transfers = flow.referTo ? new BridgeTransfers(flow, flow.referTo) : null;
  const outcome = await dial(session, {
    targets: targets.map(toTarget),
    ...(targets.some((t) => t.url || (t.type === 'number' && t.sendDigits)) ? { accept: (i: number, party: CallSession) => accept(flow, targets[i]!, party, run) } : {}),
    ...(targets.some((t) => t.type !== 'client' && t.machineDetection) ? { machineDetection: targets.map(detectionOf) } : {}),
    // The caller's own number is the natural caller ID for a forwarded inbound call.
    callerId: verb.callerId ?? session.call.from,
    timeoutMs: verb.timeout * 1000,
    record: verb.record,
    ...(verb.timeLimit === undefined ? {} : { timeLimitMs: verb.timeLimit * 1000 }),
    signal: session.document.signal,
    ringTone: verb.ringTone,
    hangupOnStar: verb.hangupOnStar,
    answerOnBridge: verb.answerOnBridge,
    ...(transfers ? { whileBridged: transfers.watch } : {}),
  });
  session.timeline('dial-result', { ...outcome });
  // The caller transferred the party and left: the party runs the transfer URL's document.
  if (await transfers?.runHandover(run)) return { kind: 'end' };
  return followAction(flow, 'dial action', verb.action, verb.method, {
    dial_call_status: outcome.status, dial_call_sid: outcome.childSid, dial_call_duration: outcome.duration, call_sid: session.sid,
    ...(outcome.answeredBy ? { answered_by: outcome.answeredBy } : {}),
  });
}

/** A target's machineDetection as the detector's settings (Twilio's names; the other thresholds their defaults). */
function detectionOf(t: Party): MachineDetectionSettings | null {
  if (t.type === 'client' || !t.machineDetection) return null;
  return {
    ...MACHINE_DETECTION_DEFAULTS,
    mode: t.machineDetection === 'Enable' ? 'enable' : 'detect_message_end',
    ...(t.machineDetectionTimeout === undefined ? {} : { timeoutMs: t.machineDetectionTimeout * 1000 }),
  };
}

/** Before the bridge: the party's keys (an extension, a conference PIN), then its screening document, if any. */
async function accept(flow: Flow, target: Party, party: CallSession, run: RunMarkup): Promise<boolean> {
  if (target.type === 'number' && target.sendDigits) await party.leg!.sendDigits(target.sendDigits);
  if (!target.url) return !party.ended;
  return screenParty(flow, party, { url: target.url, method: target.method ?? 'POST' }, run);
}

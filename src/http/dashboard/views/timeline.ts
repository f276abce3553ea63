import { html, type Html } from '../html.js';

type Detail = Record<string, unknown>;

const str = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** Why a call ended, in words: the causes the call flows record (hangup(cause), reject, engine ends). */
const CAUSES: Record<string, string> = {
  normal: 'normally', hangup: 'by a hang-up', 'caller-hangup': 'when the caller hung up', 'application-error': 'after an application error',
  'internal-error': 'after an internal error', busy: 'busy', 'no-answer': 'with no answer', canceled: 'before it was answered',
  failed: 'failed', rejected: 'refused', 'platform-restart': 'when the platform restarted', unavailable: 'unavailable',
  'markup-hangup': 'at the <Hangup> instruction', 'markup-reject': 'at the <Reject> instruction', 'markup-finished': 'after the last instruction',
  'voicemail-done': 'after the voicemail', 'queue-timeout': 'after waiting too long in the queue', 'ivr-no-input': 'with no key chosen in the menu',
  'ivr-hangup': 'by the menu', 'forward-done': 'after the forwarded call', 'dial-done': 'after the dialled call',
  'conference-participant-removed': 'when removed from the conference', 'conference-left': 'after leaving the conference',
  'conference-ended': 'when the conference ended', 'number-inactive': 'because the number is inactive', 'after-hours': 'because it was after hours',
  'api-hangup': 'by a request to hang it up', 'api-cancel': 'by a request to cancel it', 'refer-completed': 'after the caller was transferred',
};
export const causeInWords = (cause: unknown) => CAUSES[str(cause)] ?? `(${str(cause)})`;

const by = (d: Detail) => (d.by === 'local' ? 'the platform' : 'the caller');

/** "answered with HTTP 200 in 212 ms" or the transport error. */
function outcome(d: Detail): string {
  if (d.error !== undefined) return `failed: ${str(d.error)}`;
  return `answered with HTTP ${str(d.status)}${d.latency_ms !== undefined ? ` in ${str(d.latency_ms)} ms` : ''}`;
}

const VERBS: Record<string, string> = {
  say: 'Speaking a prompt', play: 'Playing audio', pause: 'Pausing', gather: 'Waiting for keys', record: 'Recording a message',
  dial: 'Dialling', hangup: 'Hanging up', redirect: 'Fetching new instructions', reject: 'Refusing the call', refer: 'Transferring the caller',
};

const ROUTES: Record<string, (d: Detail) => string> = {
  inactive: () => 'The number is inactive: the call is refused',
  'after-hours': (d) => `After hours: ${d.action === 'hangup' ? 'the call is refused' : `the after-hours ${str(d.action)} answers`}`,
  ivr: () => 'The number\'s menu answers',
  webhook: () => 'The number\'s webhook answers',
  'voice-webhook': () => 'The trunk\'s voice webhook answers',
};

/** One sentence per timeline entry, for people (no event slugs, no JSON); an unknown kind is named plainly. */
export function describeEvent(kind: string, d: Detail): string {
  switch (kind) {
    case 'webhook-request': return `Asked the webhook for instructions (${str(d.method)} ${str(d.url)})`;
    case 'webhook-reply': return `Webhook ${outcome(d)}${d.bytes !== undefined ? `, ${str(d.bytes)} bytes` : ''}`;
    case 'markup-error': return `The webhook's instructions could not be used: ${Array.isArray(d.issues) ? d.issues.map(str).join('; ') : str(d.issues)}`;
    case 'verb': return VERBS[str(d.verb).toLowerCase()] ?? `Running ${str(d.verb)}`;
    case 'digits': return d.digits ? `Caller pressed ${str(d.digits)}` : `No keys pressed${d.reason ? ` (${str(d.reason)})` : ''}`;
    case 'ivr-key': return d.key === null ? `No key chosen in the menu (round ${str(d.round)})` : `Caller chose ${str(d.key)} in the menu`;
    case 'status-callback': return `Status callback for "${str(d.event)}" ${outcome(d)}`;
    case 'recording-callback': return `Recording callback ${outcome(d)}`;
    case 'routing': return ROUTES[str(d.decision)]?.(d) ?? `Routed: ${str(d.decision)}`;
    case 'ended': return `Call ended ${causeInWords(d.cause)}, by ${by(d)}`;
    case 'answered': return 'Call answered';
    case 'rejected': return `Call refused: ${str(d.reason)}`;
    case 'recording-started': return 'Recording started';
    case 'recording-completed': return `Recording completed (${(Number(d.duration_ms) / 1000).toFixed(1)} s)`;
    case 'application-error': return `Application error: ${str(d.reason)}`;
    case 'dial': return `Dialling ${Array.isArray(d.targets) ? d.targets.map((x) => str((x as Detail).to)).join(', ') : ''}`;
    case 'dial-answered': return 'The dialled party answered; the calls are connected';
    case 'dial-time-limit': return `The dialled call reached its time limit (${str(d.seconds)} s) and was hung up`;
    case 'webhook-fallback': return `The webhook was unavailable (${str(d.error_reason)}): asked the fallback URL ${str(d.url)}`;
    case 'ended-by-request': return d.cause === 'api-cancel' ? 'A request canceled the call' : 'A request hung up the call';
    case 'redirected-by-request': return d.url ? `A request redirected the call to ${str(d.url)}` : 'A request redirected the call to new instructions';
    case 'refer': return `Asked the caller's side to transfer to ${str(d.to)} (REFER)`;
    case 'refer-result': return d.transferred ? `The transfer to ${str(d.to)} was done` : `The transfer to ${str(d.to)} failed (REFER ${str(d.refer_status)}, last report ${str(d.notify_status)})`;
    case 'refer-refused': return `The transfer to ${str(d.to)} was refused: ${str(d.reason)}`;
    case 'transfer-asked': return `A transfer to ${str(d.to)} was asked (REFER): asking ${str(d.url)} what ${str(d.transferee)} does next`;
    case 'transfer-done': return `Transferred: ${str(d.transferee)} runs the transfer URL's instructions`;
    case 'transfer-failed': return `The transfer to ${str(d.to)} failed (${str(d.reason)}): the calls stay connected`;
    case 'transfer-declined': return `A transfer to ${str(d.to)} was declined: ${str(d.reason)}`;
    case 'transferred': return `The transfer URL's instructions replace the call's (transfer to ${str(d.transfer_to)})`;
    case 'queue-redirected': return `Taken out of queue ${str(d.queue)} by a redirect`;
    case 'dial-result': return `Dial finished: ${str(d.status ?? d.kind)}`;
    case 'conference-joined': return `Joined a conference${d.muted ? ' (muted)' : ''}`;
    case 'conference-left': return 'Left the conference';
    case 'queued': return `Waiting in queue ${str(d.queue)}`;
    case 'abandoned': return `Caller left queue ${str(d.queue)}`;
    case 'speech': return d.text ? `Caller said “${str(d.text)}” (${str(d.recognizer)}${d.confidence === null || d.confidence === undefined ? '' : `, confidence ${str(d.confidence)}`}, recognized in ${str(d.recognized_ms)} ms)` : `Caller spoke, but no words were recognized (${str(d.recognizer)})`;
    case 'speech-no-input': return `Nothing said within ${str(d.timeout_seconds)} s`;
    case 'speech-error': return `Speech could not be recognized (${str(d.reason)}): ${str(d.message)}`;
    case 'machine-detection': return d.final === false ? `Answering-machine detection: a machine began (${str(d.answered_by)})` : `Answering-machine detection: ${str(d.answered_by)}`;
    case 'voice-ready': return d.via === 'hit' ? `Voice ${str(d.voice)}: played from the prompt cache` : `Voice ${str(d.voice)}: rendered by the account's speech endpoint in ${str(d.latency_ms)} ms`;
    case 'voice-failed': return `Voice ${str(d.voice)} failed (${str(d.reason)}): spoken in the default voice`;
    case 'callback-machine': return d.action === 'message' ? `A machine answered the callback (${str(d.answered_by)}): the queue's message was left` : `A machine answered the callback (${str(d.answered_by)}): it will be tried again`;
    default: return `${kind.charAt(0).toUpperCase()}${kind.slice(1).replace(/-/g, ' ')}`;
  }
}

/** The caller's side of a test call (what the sandbox caller heard and did), one sentence each. */
export function callerSentence(e: Detail): string {
  switch (e.type) {
    case 'heard-say': return `Said: “${str(e.text)}”`;
    case 'heard-play': return `Played audio ${str(e.url)}`;
    case 'heard-pause': return `Silence for ${str(e.ms)} ms`;
    case 'heard-ringback': return 'Ringback while the dialled party rang';
    case 'pressed': return `Caller pressed ${str(e.digit)}`;
    case 'said': return `Caller said: “${str(e.text)}”`;
    case 'heard-keys': return `Keys sent: ${str(e.digits)}`;
    case 'beep': return 'Caller heard a beep';
    case 'ringing': return 'Ringing';
    case 'early-media': return 'Caller heard the platform before the answer (early media)';
    case 'answered': return 'Caller was answered';
    case 'rejected': return 'Caller was refused';
    case 'bridged': return 'Caller was connected to the dialled party';
    case 'conference-joined': return 'Caller joined the conference';
    case 'conference-left': return 'Caller left the conference';
    // The cause belongs to the platform's "Call ended" line: the caller's own view says "normal" even after an error.
    case 'hangup': return e.by === 'local' ? 'The platform hung up' : 'Caller hung up';
    default: return str(e.type).replace(/-/g, ' ');
  }
}

export function timelineTable(entries: Array<{ at: string; kind: string; detail: Detail }>): Html {
  if (entries.length === 0) return html`<p>No events recorded.</p>`;
  return html`<ol class="transcript" id="timeline">${entries.map((e) =>
    html`<li data-kind="${e.kind}"><span class="t">${e.at.slice(11, 23)}</span>${describeEvent(e.kind, e.detail)}</li>`)}</ol>`;
}

import { html, type Html } from '../html.js';

type Detail = Record<string, unknown>;

const str = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** An HTTP exchange as one phrase: "HTTP 200 in 12 ms" or the transport error. */
function outcome(d: Detail): string {
  if (d.error !== undefined) return `failed: ${str(d.error)}`;
  return `HTTP ${str(d.status)}${d.latency_ms !== undefined ? ` in ${str(d.latency_ms)} ms` : ''}`;
}

/** A readable label and detail for each timeline kind the call flows write; unknown kinds show their raw detail. */
export function describeEvent(kind: string, d: Detail): { label: string; text: string } {
  switch (kind) {
    case 'webhook-request': return { label: 'Webhook request', text: `${str(d.method)} ${str(d.url)}` };
    case 'webhook-reply': return { label: 'Webhook reply', text: `${outcome(d)}${d.bytes !== undefined ? `, ${str(d.bytes)} bytes` : ''} (${str(d.url)})` };
    case 'markup-error': return { label: 'Markup error', text: `${str(d.url)}: ${str(d.issues)}` };
    case 'verb': return { label: 'Verb', text: str(d.verb) };
    case 'digits': return { label: 'Digits', text: `"${str(d.digits)}"${d.reason ? ` (${str(d.reason)})` : ''}` };
    case 'ivr-key': return { label: 'IVR key', text: `${d.key === null ? 'no key' : `"${str(d.key)}"`}, round ${str(d.round)}` };
    case 'status-callback': return { label: 'Status callback', text: `${str(d.event)} → ${str(d.url)}: ${outcome(d)}` };
    case 'recording-callback': return { label: 'Recording callback', text: `${str(d.url)}: ${outcome(d)}` };
    case 'routing': return { label: 'Routing', text: `${str(d.decision)}${d.action ? `: ${str(d.action)}` : ''}` };
    case 'ended': return { label: 'Ended', text: `${str(d.status)} (${str(d.cause)}, by ${d.by === 'local' ? 'platform' : 'caller'})` };
    case 'answered': return { label: 'Call answered', text: '' };
    case 'rejected': return { label: 'Call refused', text: `${str(d.reason)} (${str(d.cause)})` };
    case 'recording-started': return { label: 'Recording started', text: `${str(d.recording_sid)}, ${str(d.tracks)}, ${str(d.channels)} channel(s)` };
    case 'recording-completed': return { label: 'Recording completed', text: `${str(d.recording_sid)}, ${str(d.duration_ms)} ms` };
    case 'application-error': return { label: 'Application error', text: str(d.reason) };
    default: return { label: kind, text: Object.keys(d).length ? JSON.stringify(d) : '' };
  }
}

export function timelineTable(entries: Array<{ at: string; kind: string; detail: Detail }>): Html {
  if (entries.length === 0) return html`<p>No events recorded.</p>`;
  return html`<div class="table-wrap"><table id="timeline">
    <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Event</th><th scope="col">Detail</th></tr></thead>
    <tbody>${entries.map((e) => {
      const { label, text } = describeEvent(e.kind, e.detail);
      return html`<tr data-kind="${e.kind}"><td>${e.at.slice(11, 23)}</td><td>${label}</td><td>${text}</td></tr>`;
    })}</tbody></table></div>`;
}

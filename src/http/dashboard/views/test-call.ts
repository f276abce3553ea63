import { html, type Html } from '../html.js';
import { csrfField, type FormRender } from '../forms.js';
import { page } from '../layout.js';
import type { Viewer } from '../context.js';
import type { SimulationEvent } from '../../../calls/simulator.js';
import { describeEvent } from './timeline.js';

export interface TestCallResult { callSid: string | null; events: SimulationEvent[] }

function callerLine(e: Record<string, unknown>): string {
  switch (e.type) {
    case 'heard-say': return `Caller hears: “${String(e.text)}”`;
    case 'heard-play': return `Caller hears audio ${String(e.url)}`;
    case 'heard-pause': return `Caller hears ${String(e.ms)} ms of silence`;
    case 'pressed': return `Caller presses ${String(e.digit)}`;
    case 'beep': return 'Caller hears a beep';
    case 'ringing': return 'Ringing';
    case 'answered': return 'Answered';
    case 'rejected': return `Refused (${String(e.reason)})`;
    case 'bridged': return `Connected to ${String(e.to)}`;
    case 'conference-joined': return 'Caller joins the conference';
    case 'conference-left': return 'Caller leaves the conference';
    case 'hangup': return `Call ends (${String(e.cause)}, by ${e.by === 'local' ? 'the platform' : 'the caller'})`;
    default: return String(e.type);
  }
}

function transcript(result: TestCallResult): Html {
  return html`<h2>Transcript</h2>
    ${result.callSid ? html`<p>Call <a href="/dashboard/calls/${result.callSid}">${result.callSid}</a> (full timeline on its page).</p>`
      : html`<p>No call record was created: the number refused the call before it reached the platform.</p>`}
    <ol class="transcript" id="transcript">${result.events.map((e) => {
      const t = html`<span class="t">${(e.at_ms / 1000).toFixed(2)} s</span>`;
      if (e.source === 'caller') return html`<li class="caller" data-type="${e.type}">${t}${callerLine(e)}</li>`;
      const { label, text } = describeEvent(e.type, e.detail);
      return html`<li class="platform" data-type="${e.type}">${t}<strong>${label}</strong> ${text}</li>`;
    })}</ol>`;
}

export function testCallView(v: Viewer, f: FormRender, numbers: string[], result?: TestCallResult): Html {
  const fields = numbers.length === 0 ? html`` : html`
    ${f.select('to', 'Call this number', numbers.map((n) => [n, n] as const))}
    ${f.text('from', 'From (the caller, E.164)', { type: 'tel', placeholder: '+15557770001' })}
    ${f.text('digits', 'Keys to press', { hint: 'Pressed at each prompt for input, in order; separate prompts with spaces (e.g. "1 42#"). Empty presses nothing.' })}
    ${f.text('max_seconds', 'Hang up after (seconds)', { inputmode: 'numeric' })}`;
  return page({ title: 'Test call', viewer: v, section: 'test-call' }, html`
    <p>Places a simulated call to one of your numbers through the normal call handling (schedule, IVR, webhook, recording)
      and shows what the caller heard. No phone and no carrier are involved; the call appears in the call log.</p>
    ${numbers.length === 0 ? html`<p>Claim a number first on the <a href="/dashboard/numbers">Numbers</a> page.</p>` : html`
    ${f.summary()}
    <form method="post" action="/dashboard/test-call" novalidate>${csrfField(v.csrf)}${fields}
      <div class="actions"><button type="submit">Start test call</button></div></form>`}
    ${result ? transcript(result) : ''}`);
}

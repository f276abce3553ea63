import { html, type Html } from '../html.js';
import { csrfField, type FormRender } from '../forms.js';
import { page } from '../layout.js';
import type { Viewer } from '../context.js';
import type { TestCallRun } from '../test-call-runs.js';
import { callerSentence, describeEvent } from './timeline.js';

/** Both sides in sentences; a side saying exactly what the other just said (the keys pressed) is shown once. */
function transcriptLines(run: TestCallRun) {
  const lines = run.events.map((e) => ({ source: e.source, type: e.type, at_ms: e.at_ms,
    text: e.source === 'caller' ? callerSentence(e) : describeEvent(e.type, e.detail) }));
  return lines.filter((l, i) => i === 0 || l.text !== lines[i - 1]!.text);
}

/** The transcript of the latest test call; while it runs the page polls this part (data-final stops the polling). */
export function testCallLive(run: TestCallRun | undefined): Html {
  if (!run) return html``;
  const state = run.failure ?? (run.done ? 'The call has ended.' : 'The call is in progress; this transcript updates as it goes.');
  return html`<h2>Transcript</h2>
    <p role="status"${run.done ? html` data-final` : ''}>${state}</p>
    ${run.callSid ? html`<p>Call <a href="/dashboard/calls/${run.callSid}">${run.callSid}</a>: its page has the full timeline and a waterfall.</p>`
      : run.done ? html`<p>No call record was created: the number refused the call before it reached the platform.</p>` : ''}
    <ol class="transcript" id="transcript"${run.done ? html` data-ended` : ''}>${transcriptLines(run).map((l) =>
      html`<li class="${l.source}" data-type="${l.type}"><span class="t">${(l.at_ms / 1000).toFixed(2)} s</span>${l.text}</li>`)}</ol>`;
}

export function testCallView(v: Viewer, f: FormRender, numbers: string[], run?: TestCallRun): Html {
  const fields = numbers.length === 0 ? html`` : html`
    ${f.select('to', 'Call this number', numbers.map((n) => [n, n] as const))}
    ${f.text('from', 'From (the caller, E.164)', { type: 'tel', placeholder: '+15557770001' })}
    ${f.text('digits', 'Keys to press', { hint: 'Pressed at each prompt for input, in order; separate prompts with spaces (e.g. "1 42#"). Empty presses nothing.' })}
    ${f.text('say', 'Words to say', { hint: 'Said at each prompt for speech, in order; separate prompts with ";" (e.g. "sales; yes please"). Empty says nothing.' })}
    ${f.text('max_seconds', 'Hang up after (seconds)', { inputmode: 'numeric' })}`;
  return page({ title: 'Test call', viewer: v, section: 'test-call' }, html`
    <p>Places a simulated call to one of your numbers through the normal call handling (schedule, IVR, webhook, recording)
      and shows what the caller heard. No phone and no carrier are involved; the call appears in the call log.</p>
    ${numbers.length === 0 ? html`<p>Claim a number first on the <a href="/dashboard/numbers">Numbers</a> page.</p>` : html`
    ${f.summary()}
    <form method="post" action="/dashboard/test-call" novalidate>${csrfField(v.csrf)}${fields}
      <div class="actions"><button type="submit">Start test call</button></div></form>`}
    ${run ? html`<noscript><p>Reload this page to follow the call.</p></noscript>
    <div id="test-call-live" data-refresh="/dashboard/test-call/live" data-interval="400">${testCallLive(run)}</div>` : ''}`);
}

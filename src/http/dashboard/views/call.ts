import { html, type Html } from '../html.js';
import { actionButton, page } from '../layout.js';
import { csrfField } from '../forms.js';
import type { Viewer } from '../context.js';
import type { CallRecord, TimelineEntry } from '../../../store/calls.js';
import type { RecordingRecord } from '../../../store/recordings.js';
import { seconds, when } from '../format.js';
import type { Conference, Participant } from '../../../conferences/repo.js';
import { causeInWords, timelineTable } from './timeline.js';
import { waterfall } from './waterfall.js';

/** `problem`: why a Hang up or Redirect was refused; `notice`: the key of the confirmation after one. */
export function callView(v: Viewer, c: CallRecord, timeline: TimelineEntry[], recordings: RecordingRecord[], children: CallRecord[],
  conferences: Array<{ p: Participant; conference: Conference }> = [], opts: { problem?: string; notice?: string } = {}): Html {
  return page({ title: `Call ${c.sid}`, viewer: v, section: 'calls', notice: opts.notice }, html`
    ${opts.problem ? html`<p class="field-error" role="alert">${opts.problem}</p>` : ''}
    ${c.endedAt ? '' : html`<div class="actions">${actionButton(`/dashboard/calls/${c.sid}/hangup`, 'Hang up', v.csrf, { danger: true, confirm: 'Hang up this call? Whoever is on it is disconnected.' })}</div>
    <form method="post" action="/dashboard/calls/${c.sid}/redirect" class="field-inline">${csrfField(v.csrf)}
      <label for="redirect-url">Redirect to the instructions at</label>
      <input id="redirect-url" name="url" type="url" required placeholder="https://example.com/voice" autocomplete="off">
      <label for="redirect-method">Method</label>
      <select id="redirect-method" name="method"><option>POST</option><option>GET</option></select>
      <button type="submit">Redirect</button>
    </form>`}
    <dl class="facts">
      <dt>Direction</dt><dd>${c.direction}</dd>
      <dt>From</dt><dd>${c.from}</dd><dt>To</dt><dd>${c.to}</dd>
      <dt>Status</dt><dd>${c.status}${c.hangupCause ? `, ended ${causeInWords(c.hangupCause)}` : ''}</dd>
      <dt>Started</dt><dd>${when(c.createdAt)}</dd><dt>Answered</dt><dd>${when(c.answeredAt)}</dd><dt>Ended</dt><dd>${when(c.endedAt)}</dd>
      <dt>Duration</dt><dd>${c.duration === null ? '—' : `${c.duration} s`}</dd>
      ${c.parentSid ? html`<dt>Parent call</dt><dd><a href="/dashboard/calls/${c.parentSid}">${c.parentSid}</a></dd>` : ''}
    </dl>
    ${children.length ? html`<h2>Dialled legs</h2><ul>${children.map((k) => html`<li><a href="/dashboard/calls/${k.sid}">${k.to}</a> — ${k.status}</li>`)}</ul>` : ''}
    ${conferences.length ? html`<h2>Conferences</h2><div class="table-wrap"><table id="call-conferences">
      <thead><tr><th scope="col">Conference</th><th scope="col">Participant status</th><th scope="col">Added</th><th scope="col">Left</th></tr></thead>
      <tbody>${conferences.map(({ p, conference }) => html`<tr><td><a href="/dashboard/conferences/${conference.sid}">${conference.friendlyName}</a></td>
        <td>${p.status}</td><td>${when(p.createdAt)}</td><td>${p.status === 'completed' ? when(p.updatedAt) : '—'}</td></tr>`)}</tbody></table></div>` : ''}
    <h2>Recordings</h2>
    ${recordings.length === 0 ? html`<p>No recordings.</p>` : html`<ul class="recordings">${recordings.map((r) => html`<li>
      <p><code>${r.sid}</code> — ${r.source}, ${r.tracks} (${r.channels} channel${r.channels === 1 ? '' : 's'}), ${seconds(r.durationMs)}, ${r.status}</p>
      <audio controls preload="metadata" src="/dashboard/recordings/${r.sid}.wav" aria-label="Recording ${r.sid}"></audio>
      <p><a href="/dashboard/recordings/${r.sid}.wav" download>Download WAV</a></p></li>`)}</ul>`}
    <h2>Waterfall</h2>
    ${waterfall(timeline)}
    <h2>Timeline</h2>
    ${timelineTable(timeline)}
    <p><a href="/dashboard/calls">Back to calls</a></p>`);
}

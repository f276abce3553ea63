import { html, type Html } from '../html.js';
import type { FormRender } from '../forms.js';
import { page } from '../layout.js';
import type { Viewer } from '../context.js';
import type { CallRecord } from '../../../store/calls.js';
import { when } from '../format.js';

export const CALL_STATUSES = ['queued', 'ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled'] as const;
export const CALL_DIRECTIONS = ['inbound', 'outbound-api', 'outbound-dial', 'trunk'] as const;

export function callsView(v: Viewer, calls: CallRecord[], f: FormRender, opts: { numbers: string[]; olderHref: string | null; newestHref: string | null }): Html {
  const any = ['', 'Any'] as const;
  const filters = html`
    ${f.select('status', 'Status', [any, ...CALL_STATUSES.map((s) => [s, s] as const)])}
    ${f.select('direction', 'Direction', [any, ...CALL_DIRECTIONS.map((s) => [s, s] as const)])}
    ${f.select('number', 'Number', [any, ...opts.numbers.map((n) => [n, n] as const)])}
    ${f.text('date', 'Date (UTC)', { type: 'date', placeholder: 'YYYY-MM-DD' })}`;
  return page({ title: 'Calls', viewer: v, section: 'calls' }, html`
    <form method="get" action="/dashboard/calls" class="filters" role="search" aria-label="Filter calls">${filters}
      <button type="submit">Filter</button> <a href="/dashboard/calls">Clear</a></form>
    ${calls.length === 0 ? html`<p>No calls match.</p>` : html`<div class="table-wrap"><table id="calls">
      <thead><tr><th scope="col">Started</th><th scope="col">Direction</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Status</th><th scope="col">Duration</th><th scope="col">Cause</th></tr></thead>
      <tbody>${calls.map((c) => html`<tr><td><a href="/dashboard/calls/${c.sid}">${when(c.createdAt)}</a></td><td>${c.direction}</td>
        <td>${c.from}</td><td>${c.to}</td><td>${c.status}</td><td>${c.duration === null ? '—' : `${c.duration} s`}</td><td>${c.hangupCause ?? ''}</td></tr>`)}</tbody>
    </table></div>`}
    <nav class="actions" aria-label="Pages">${opts.newestHref ? html`<a href="${opts.newestHref}">Newest calls</a>` : ''}
      ${opts.olderHref ? html`<a href="${opts.olderHref}" rel="next">Older calls</a>` : ''}</nav>`);
}

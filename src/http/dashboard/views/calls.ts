import { html, type Html } from '../html.js';
import type { FormRender } from '../forms.js';
import { page } from '../layout.js';
import type { Viewer } from '../context.js';
import type { CallRecord } from '../../../store/calls.js';
import { when } from '../format.js';
import { causeInWords } from './timeline.js';

export const CALL_STATUSES = ['queued', 'ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled'] as const;
export const CALL_DIRECTIONS = ['inbound', 'outbound-api', 'outbound-dial', 'trunk'] as const;

const COLUMNS = ['Started', 'Direction', 'From', 'To', 'Status', 'Duration', 'Ended'] as const;

/** The call list; on a phone each call becomes a labelled block (no sideways scrolling). */
export function callsTable(calls: CallRecord[]): Html {
  const cells = (c: CallRecord) => [html`<a href="/dashboard/calls/${c.sid}">${when(c.createdAt)}</a>`, c.direction, c.from, c.to, c.status,
    c.duration === null ? '—' : `${c.duration} s`, c.hangupCause ? causeInWords(c.hangupCause) : ''];
  return html`<div class="table-wrap"><table id="calls" class="stack">
    <thead><tr>${COLUMNS.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
    <tbody>${calls.map((c) => html`<tr>${cells(c).map((v, i) => html`<td data-label="${COLUMNS[i]!}">${v}</td>`)}</tr>`)}</tbody>
  </table></div>`;
}

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
    ${calls.length === 0 ? html`<p>No calls match.</p>` : callsTable(calls)}
    <nav class="actions" aria-label="Pages">${opts.newestHref ? html`<a href="${opts.newestHref}">Newest calls</a>` : ''}
      ${opts.olderHref ? html`<a href="${opts.olderHref}" rel="next">Older calls</a>` : ''}</nav>`);
}

import { html, type Html } from '../html.js';
import { page } from '../layout.js';
import type { Viewer } from '../context.js';
import type { CallRecord } from '../../../store/calls.js';
import type { DayStats } from '../call-stats.js';
import { barChart } from './charts.js';
import { callsTable } from './calls.js';

const rate = (d: DayStats) => (d.calls === 0 ? 0 : Math.round((d.answered / d.calls) * 100));
const shortDay = (day: string) => day.slice(5);

/** The signed-in start page: how many calls, how many were answered, and the latest ones. */
export function homeView(v: Viewer, days: DayStats[], recent: CallRecord[]): Html {
  const total = days.reduce((n, d) => n + d.calls, 0);
  const answered = days.reduce((n, d) => n + d.answered, 0);
  const period = `${days.length} days (UTC)`;
  return page({ title: 'Overview', viewer: v }, html`
    <p id="totals">${total} call${total === 1 ? '' : 's'} in the last ${period}${total ? `, ${Math.round((answered / total) * 100)} % answered` : ''}.
      <a href="/dashboard/test-call">Place a test call</a>.</p>
    <div class="charts">
      <section aria-labelledby="h-per-day"><h2 id="h-per-day">Calls per day</h2>
        ${barChart('chart-calls', `Calls per day over the last ${period}`, days.map((d) => ({ label: shortDay(d.day), value: d.calls, title: `${d.day}: ${d.calls} calls` })))}</section>
      <section aria-labelledby="h-answer"><h2 id="h-answer">Answer rate (%)</h2>
        ${barChart('chart-answer', `Share of calls answered per day over the last ${period}`, days.map((d) => ({
          label: shortDay(d.day), value: rate(d), title: d.calls ? `${d.day}: ${d.answered} of ${d.calls} answered (${rate(d)} %)` : `${d.day}: no calls` })), { max: 100 })}</section>
    </div>
    <h2>Last calls</h2>
    ${recent.length === 0 ? html`<p>No calls yet. <a href="/dashboard/test-call">Place a test call</a> to one of your numbers.</p>` : callsTable(recent)}
    <p><a href="/dashboard/calls">All calls</a></p>`);
}

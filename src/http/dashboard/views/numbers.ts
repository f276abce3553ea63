import { html, type Html } from '../html.js';
import { actionButton, page } from '../layout.js';
import type { Viewer } from '../context.js';
import type { PhoneNumber } from '../../../numbers/repo.js';
import { numberPath } from '../format.js';

export function numbersView(v: Viewer, mine: PhoneNumber[], pool: PhoneNumber[], opts: { notice?: string; problem?: string }): Html {
  return page({ title: 'Numbers', viewer: v, section: 'numbers', notice: opts.notice }, html`
    ${opts.problem ? html`<p class="field-error" role="alert">${opts.problem}</p>` : ''}
    <h2>Your numbers</h2>
    ${mine.length === 0 ? html`<p>You have no numbers yet. Claim one from the pool below.</p>` : html`
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Number (use as <code>from</code>)</th><th scope="col">Status</th><th scope="col">Webhook</th><th scope="col"></th></tr></thead>
      <tbody>${mine.map((n) => html`<tr>
        <td><a class="e164" href="${numberPath(n.e164)}">${n.e164}</a></td>
        <td>${n.settings.active ? html`<span class="badge ok">active</span>` : html`<span class="badge bad">inactive</span>`}
          ${n.settings.ivr?.enabled ? html` <span class="badge">IVR</span>` : ''}${n.settings.schedule ? html` <span class="badge">hours</span>` : ''}</td>
        <td>${n.settings.webhook_url ?? html`<em>not set</em>`}</td>
        <td><a href="${numberPath(n.e164)}">Settings</a></td></tr>`)}</tbody>
    </table></div>`}
    <h2>Available numbers</h2>
    ${pool.length === 0 ? html`<p>The pool is empty. Ask the service team for more numbers.</p>` : html`
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Number</th><th scope="col"></th></tr></thead>
      <tbody>${pool.map((n) => html`<tr><td class="e164">${n.e164}</td>
        <td>${actionButton('/dashboard/numbers/claim', `Claim ${n.e164}`, v.csrf, { hidden: { number: n.e164 } })}</td></tr>`)}</tbody>
    </table></div>`}`);
}

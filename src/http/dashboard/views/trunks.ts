import { html, type Html } from '../html.js';
import { page } from '../layout.js';
import type { Viewer } from '../context.js';
import type { Trunk } from '../../../store/trunks.js';
import { when } from '../format.js';

export const statusBadge = (status: string) =>
  html`<span class="badge${status === 'active' ? ' ok' : status === 'revoked' || status === 'suspended' ? ' bad' : ''}">${status}</span>`;

export function trunksView(v: Viewer, trunks: readonly Trunk[], opts: { notice?: string; capacity: number }): Html {
  const held = trunks.filter((t) => t.status !== 'revoked').length;
  return page({ title: 'Trunks', viewer: v, section: 'trunks', notice: opts.notice }, html`
    <p>SIP trunks connect your PBX, carrier or browser agents (WSS). This account holds ${held} of ${opts.capacity}.</p>
    <div class="actions"><a href="/dashboard/trunks/new">New trunk</a></div>
    ${trunks.length === 0 ? html`<p>No trunks yet.</p>` : html`<div class="table-wrap"><table>
      <thead><tr><th scope="col">ID</th><th scope="col">Label</th><th scope="col">Transport</th><th scope="col">Status</th><th scope="col">Username</th><th scope="col">Created</th></tr></thead>
      <tbody>${trunks.map((t) => html`<tr><td><a href="/dashboard/trunks/${t.id}">${t.id}</a></td><td><a href="/dashboard/trunks/${t.id}">${t.label ?? '(no label)'}</a></td>
        <td>${t.transport}</td><td>${statusBadge(t.status)}</td><td><code>${t.endpoint_name}</code></td><td>${when(t.created_at)}</td></tr>`)}</tbody>
    </table></div>`}`);
}

export function trunksDisabledView(v: Viewer): Html {
  return page({ title: 'Trunks', viewer: v, section: 'trunks' }, html`
    <p class="warning" role="status">Trunk access is not enabled on this account, so trunks cannot be listed or created here or through
      the API (it answers 403). Ask the service team to enable trunk access; once they do, this page works at once.</p>`);
}

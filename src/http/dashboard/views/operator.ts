// The operator's pages: sign-in with the operator token, and the cluster (the control planes sharing the database).
import { html, type Html } from '../html.js';
import { csrfField, FormRender } from '../forms.js';
import { actionButton, page } from '../layout.js';
import { when } from '../format.js';
import { operatorBar } from './operator-carriers.js';
import type { NodeState, NodeStatus } from '../../../recovery/cluster-status.js';

export function operatorSignInView(opts: { csrf: string; problem?: string; notice?: string }): Html {
  return page({ title: 'Operator sign-in', viewer: null, notice: opts.notice }, html`
    ${opts.problem ? html`<p class="field-error" role="alert" id="operator-error">${opts.problem}</p>` : ''}
    <form method="post" action="/dashboard/operator/sign-in" class="narrow">${csrfField(opts.csrf)}
      ${new FormRender({}).text('token', 'Operator token', {
        type: 'password', autocomplete: 'off', required: true,
        hint: 'The token in the data dir\'s operator.token file on the server (the same on every node of a cluster).',
      })}
      <div class="actions"><button type="submit">Sign in</button></div>
    </form>
    <p class="hint">For the people who run this Ringbase installation. Account holders <a href="/dashboard/login">sign in here</a>.</p>`);
}

const STATE_TEXT: Record<NodeState, string> = {
  alive: 'Alive',
  draining: 'Draining: no new calls',
  dead: 'Dead: another node will finish its calls',
  reconciled: 'Dead: another node is finishing its calls',
};

export function clusterView(opts: { csrf: string; self: string; nodes: NodeStatus[]; notice?: string }): Html {
  const { csrf, self, nodes } = opts;
  return page({ title: 'Cluster', viewer: null, notice: opts.notice }, html`
    ${operatorBar(csrf)}
    <p>The control planes (nodes) sharing this database. This page was answered by <code>${self}</code>.
      <a href="/dashboard/operator/cluster">Refresh</a></p>
    ${nodes.length === 0 ? html`<p>No node is running on this database.</p>` : html`<div class="table-wrap"><table>
      <thead><tr><th scope="col">Node</th><th scope="col">State</th><th scope="col">Open calls</th><th scope="col">Last heartbeat</th>
        <th scope="col">Address</th><th scope="col">Started</th><th scope="col"></th></tr></thead>
      <tbody>${nodes.map((n) => html`<tr data-node="${n.id}"><td><code>${n.id}</code>${n.id === self ? ' (this node)' : ''}<br>
        <span class="hint">${n.host}, process ${n.pid}</span></td>
        <td>${STATE_TEXT[n.state]}</td><td>${n.open_calls}</td><td>${n.beat_age_seconds} s ago</td>
        <td>${n.address ?? 'not listening yet'}</td><td>${when(n.started_at)}</td>
        <td>${n.state === 'alive' ? actionButton(`/dashboard/operator/cluster/nodes/${encodeURIComponent(n.id)}/drain`, 'Drain', csrf, {
          danger: true, confirm: 'Drain this node? It takes no new calls and stops once its calls have ended.',
        }) : ''}</td></tr>`)}</tbody>
    </table></div>`}
    <p class="hint">A node beats every 2 s; one silent for 10 s is dead, and the others finish its calls. The same list:
      <code>ringbase cluster status</code>, or <code>GET /operator/cluster</code> with the operator token.</p>`);
}

/** A refused operator action, with the way back to the cluster. */
export function operatorErrorView(status: number, message: string): Html {
  return page({ title: status === 404 ? 'Not found' : 'Cannot do that', viewer: null }, html`<p>${message}</p>
    <p><a href="/dashboard/operator/cluster">Back to the cluster</a></p>`);
}

import { html, type Html } from '../html.js';
import { actionButton, page } from '../layout.js';
import type { Viewer } from '../context.js';
import type { Subscription } from '../../../events/subscriptions.js';
import type { AttemptRecord, DeliveryLogEntry } from '../../../events/outbox-store.js';
import { when } from '../format.js';
import { subscriptionPath } from './subscriptions.js';

const STATUS: Record<DeliveryLogEntry['status'], string> = { pending: 'Waiting', delivered: 'Delivered', exhausted: 'Gave up' };

const attemptText = (a: AttemptRecord) =>
  `${a.statusCode === null ? 'no answer' : `HTTP ${a.statusCode}`} in ${a.latencyMs} ms${a.error ? `: ${a.error}` : ''}`;

export function subscriptionView(v: Viewer, s: Subscription, log: DeliveryLogEntry[], notice?: string): Html {
  const path = subscriptionPath(s);
  return page({ title: `Subscription to ${s.eventType}`, viewer: v, section: 'subscriptions', notice }, html`
    <dl class="facts"><dt>Event</dt><dd>${s.eventType}</dd><dt>Address</dt><dd>${s.targetUrl}</dd>
      <dt>Delivery</dt><dd>${s.deliveryMode === 'sync' ? 'During the call' : 'In the background'}</dd>
      <dt>Timeout</dt><dd>${s.timeoutMs} ms</dd><dt>Retries</dt><dd>${s.maxRetries}</dd>
      <dt>Status</dt><dd id="subscription-status">${s.status === 'active' ? 'Active' : 'Paused'}</dd><dt>Id</dt><dd><code>${s.sid}</code></dd></dl>
    <div class="actions">
      ${actionButton(`${path}/test`, 'Send a test event', v.csrf)}
      ${s.status === 'active' ? actionButton(`${path}/pause`, 'Pause', v.csrf) : actionButton(`${path}/resume`, 'Resume', v.csrf)}
      ${actionButton(`${path}/delete`, 'Delete subscription', v.csrf,
        { danger: true, confirm: 'Delete this subscription? Its pending deliveries are dropped and its log is lost.' })}
    </div>
    <h2>Recent deliveries</h2>
    ${log.length === 0 ? html`<p>No deliveries yet. Send a test event to try your address.</p>` : html`<div class="table-wrap"><table id="deliveries">
      <thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col"></th></tr></thead>
      <tbody>${log.map((e) => html`<tr data-delivery="${e.sid}"><td>${when(e.createdAt)}</td><td><code>${e.eventSid}</code></td>
        <td>${STATUS[e.status]}${e.nextAttemptAt ? ` (next try ${when(e.nextAttemptAt)})` : ''}</td>
        <td>${e.attempts.length === 0 ? 'none yet' : html`<ol>${e.attempts.map((a) => html`<li>${when(a.startedAt)}: ${attemptText(a)}</li>`)}</ol>`}</td>
        <td>${actionButton(`${path}/deliveries/${e.sid}/redeliver`, 'Redeliver', v.csrf)}</td></tr>`)}</tbody>
    </table></div>`}
    <p><a href="/dashboard/subscriptions">All subscriptions</a></p>`);
}

import { html, type Html } from '../html.js';
import { page } from '../layout.js';
import type { Viewer } from '../context.js';
import type { Subscription } from '../../../events/subscriptions.js';
import type { DeliveryLogEntry } from '../../../events/outbox-store.js';
import { when } from '../format.js';

export function subscriptionView(v: Viewer, s: Subscription, log: DeliveryLogEntry[]): Html {
  return page({ title: `Subscription ${s.sid}`, viewer: v, section: 'settings' }, html`
    <dl class="facts"><dt>Event</dt><dd>${s.eventType}</dd><dt>Target</dt><dd>${s.targetUrl}</dd><dt>Mode</dt><dd>${s.deliveryMode}</dd>
      <dt>Timeout</dt><dd>${s.timeoutMs} ms</dd><dt>Retries</dt><dd>${s.maxRetries}</dd><dt>Status</dt><dd>${s.status}</dd></dl>
    <h2>Deliveries</h2>
    ${log.length === 0 ? html`<p>No deliveries yet.</p>` : html`<div class="table-wrap"><table id="deliveries">
      <thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th></tr></thead>
      <tbody>${log.map((e) => html`<tr><td>${when(e.createdAt)}</td><td>${e.eventSid}</td><td>${e.status}${e.nextAttemptAt ? ` (next ${when(e.nextAttemptAt)})` : ''}</td>
        <td><ol>${e.attempts.map((a) => html`<li>${when(a.startedAt)}: ${a.error ? `failed: ${a.error}` : `HTTP ${String(a.statusCode)}`} in ${a.latencyMs} ms</li>`)}</ol></td></tr>`)}</tbody>
    </table></div>`}
    <p><a href="/dashboard/settings">Back to settings</a></p>`);
}

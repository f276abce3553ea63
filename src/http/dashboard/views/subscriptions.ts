import { html, type Html } from '../html.js';
import { copyable, page } from '../layout.js';
import { csrfField, FormRender } from '../forms.js';
import type { Viewer } from '../context.js';
import { EVENT_TYPES } from '../../../events/lifecycle.js';
import type { Subscription } from '../../../events/subscriptions.js';
import { when } from '../format.js';

export const subscriptionPath = (s: Subscription) => `/dashboard/subscriptions/${s.sid}`;

const MODES = [['async', 'In the background, retried on failure'], ['sync', 'During the call, which waits for your answer']] as const;

export function subscriptionsView(v: Viewer, subs: Subscription[], opts: { created?: { sub: Subscription; secret: string }; notice?: string; form?: FormRender }): Html {
  const f = opts.form ?? new FormRender({ delivery_mode: 'async' });
  return page({ title: 'Webhook subscriptions', viewer: v, section: 'subscriptions', notice: opts.notice }, html`
    ${opts.created ? html`<div class="notice" role="status"><p><strong>Subscription created.</strong> Copy its signing secret now: it is
      shown only this once. Check each delivery's <code>X-Service-Signature</code> header with it (docs/events.md).</p>
      ${copyable('new-secret', opts.created.secret, 'Copy secret')}
      <p><a href="${subscriptionPath(opts.created.sub)}">Open the subscription</a> to send a test event.</p></div>` : ''}
    <p>Each subscription delivers one kind of event to an address of yours as a signed POST. The same subscriptions are
      managed over the API at <code>/v1/webhooks</code>.</p>
    ${f.summary()}
    <form method="post" action="/dashboard/subscriptions" novalidate>${csrfField(v.csrf)}
      ${f.select('event_type', 'Event', [['', 'Choose an event…'], ...EVENT_TYPES.map((t) => [t, t] as const)])}
      ${f.text('target_url', 'Address that receives the events', { type: 'url', placeholder: 'https://hooks.example.com/ringbase', hint: 'An https address on a host your organisation allows (Settings → Webhook host allow-list).' })}
      ${f.select('delivery_mode', 'Delivery', MODES)}
      <button type="submit">Create subscription</button></form>
    <h2>Subscriptions</h2>
    ${subs.length === 0 ? html`<p>No subscriptions yet.</p>` : html`<div class="table-wrap"><table id="subscriptions">
      <thead><tr><th scope="col">Event</th><th scope="col">Address</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
      <tbody>${subs.map((s) => html`<tr><td><a href="${subscriptionPath(s)}">${s.eventType}</a></td><td class="wrap">${s.targetUrl}</td>
        <td>${s.status === 'active' ? 'Active' : 'Paused'}</td><td>${when(s.createdAt)}</td></tr>`)}</tbody></table></div>`}`);
}

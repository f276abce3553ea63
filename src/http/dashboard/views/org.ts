import { html, type Html } from '../html.js';
import { csrfField, type FormRender } from '../forms.js';
import { actionButton, copyable } from '../layout.js';
import type { Viewer } from '../context.js';
import type { OrgSettings } from '../../../org/settings.js';
import { when } from '../format.js';

export interface OrgViewData { org: OrgSettings; form: FormRender; newInjectionToken?: string }

function allowList(v: Viewer, title: string, items: string[], remove: string, what: string, consequence: string): Html {
  return items.length === 0 ? html`<p>${title}: none yet.</p>` : html`<ul class="allow-list" aria-label="${title}">${items.map((x) =>
    html`<li><code>${x}</code> ${actionButton(remove, `Remove ${x}`, v.csrf, { hidden: { [what]: x }, danger: true, confirm: `Remove ${x}? ${consequence}` })}</li>`)}</ul>`;
}

/** Webhook host allow-list and lead injection (token and IP allow-list) (src/org). */
export function orgSections(v: Viewer, d: OrgViewData): Html {
  const f = d.form;
  return html`
    <h2>Webhook host allow-list</h2>
    <p>Event subscriptions may deliver only to these hosts.</p>
    ${allowList(v, 'Allowed hosts', d.org.webhookHosts, '/dashboard/settings/hosts/remove', 'host', 'Subscriptions stop delivering to it at once.')}
    <form method="post" action="/dashboard/settings/hosts" novalidate>${csrfField(v.csrf)}
      ${f.text('host', 'Add a host', { placeholder: 'hooks.example.com' })}<button type="submit">Add host</button></form>

    <h2>Lead injection</h2>
    <p>Leads are injected with the token in <code>X-Injection-Token</code>, from an allowed IP address.</p>
    <p>Token: ${d.org.injectionTokenSet ? `set (last rotated ${when(d.org.injectionTokenRotatedAt)})` : 'not set'}</p>
    ${d.newInjectionToken ? html`<div class="notice" role="status"><p>New injection token, shown only this once:</p>${copyable('injection-token', d.newInjectionToken, 'Copy token')}</div>` : ''}
    ${actionButton('/dashboard/settings/injection-token', d.org.injectionTokenSet ? 'Rotate injection token' : 'Create injection token', v.csrf,
      d.org.injectionTokenSet ? { danger: true, confirm: 'Rotate the injection token? The current one stops working at once.' } : {})}
    ${allowList(v, 'Allowed IP addresses', d.org.injectionIps, '/dashboard/settings/ips/remove', 'cidr', 'Leads from it are refused at once.')}
    <form method="post" action="/dashboard/settings/ips" novalidate>${csrfField(v.csrf)}
      ${f.text('cidr', 'Allow an IP address or block', { placeholder: '203.0.113.0/24' })}<button type="submit">Add address</button></form>

    <h2>Webhook subscriptions</h2>
    <p>Event subscriptions have <a href="/dashboard/subscriptions">a page of their own</a>: create, pause, test and redeliver there.</p>`;
}

import { html, type Html } from '../html.js';
import { actionButton, copyable, page } from '../layout.js';
import { csrfField, FormRender } from '../forms.js';
import type { Viewer } from '../context.js';
import type { ApiKeySummary } from '../../../store/api-keys.js';
import { when } from '../format.js';

export function keysView(v: Viewer, keys: ApiKeySummary[], opts: { created?: string; notice?: string; form?: FormRender }): Html {
  const f = opts.form ?? new FormRender({});
  return page({ title: 'API keys', viewer: v, section: 'keys', notice: opts.notice }, html`
    ${opts.created ? html`<div class="notice" role="status"><p><strong>Your new API key.</strong> Copy it now: it is shown only this once
      and cannot be recovered. Keep it on your server; never put it in a browser or mobile app.</p>
      ${copyable('new-key', opts.created, 'Copy key')}</div>` : ''}
    <p>Pass a key as <code>Authorization: Bearer sk_live_…</code> on every API request.</p>
    <form method="post" action="/dashboard/keys" class="inline-form">${csrfField(v.csrf)}
      ${f.text('name', 'Name of the new key', { hint: 'What will use it, e.g. "billing server". Up to 64 characters.' })}
      <button type="submit">Create API key</button></form>
    <h2>Active keys</h2>
    ${keys.length === 0 ? html`<p>No active keys.</p>` : html`<div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"></th></tr></thead>
      <tbody>${keys.map((k) => html`<tr data-key-id="${k.id}"><td>${k.name ?? '(unnamed)'}</td><td><code>${k.prefix}…${k.last4}</code></td><td>${when(k.createdAt)}</td>
        <td>${k.lastUsedAt ? when(k.lastUsedAt) : 'never'}</td>
        <td>${actionButton(`/dashboard/keys/${k.id}/delete`, `Delete ${k.prefix}…${k.last4}`, v.csrf,
          { danger: true, confirm: 'Delete this key? Requests using it will be refused at once.' })}</td></tr>`)}</tbody>
    </table></div>`}`);
}

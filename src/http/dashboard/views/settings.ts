import { html, type Html } from '../html.js';
import { actionButton, copyable, page } from '../layout.js';
import type { Viewer } from '../context.js';
import { orgSections, type OrgViewData } from './org.js';
import { speechSection, voicesSection, type SpeechViewData } from './speech.js';

export function settingsView(v: Viewer, opts: { secret: string | null; notice?: string; org: OrgViewData; speech: SpeechViewData }): Html {
  return page({ title: 'Organisation settings', viewer: v, section: 'settings', notice: opts.notice }, html`
    <dl class="facts"><dt>Account</dt><dd>${v.account.name} (ID ${v.account.id})</dd>
      <dt>Trunk access</dt><dd>${v.account.trunking ? `enabled, up to ${v.account.trunkCapacity} trunks` : 'not enabled'}</dd></dl>
    <h2>Webhook signing secret</h2>
    <p>Every request to your webhooks and callbacks is signed with this secret (header <code>X-Service-Signature</code>);
      verify it to know a request came from this service.</p>
    ${opts.secret ? copyable('signing-secret', opts.secret, 'Copy secret') : html`<p class="secret" id="signing-secret-masked">whsec_••••••••••••••••</p>`}
    <div class="actions">
      ${opts.secret ? '' : actionButton('/dashboard/settings/signing-secret/reveal', 'Reveal secret', v.csrf)}
      ${actionButton('/dashboard/settings/signing-secret/rotate', 'Rotate secret', v.csrf,
        { danger: true, confirm: 'Rotate the signing secret? Requests are signed with the new one at once; the old one stops verifying.' })}
    </div>
    ${opts.org.form.summary()}
    ${orgSections(v, opts.org)}
    ${opts.speech.form.summary()}
    ${speechSection(v, opts.speech)}
    ${opts.speech.voicesForm.summary()}
    ${voicesSection(v, opts.speech)}`);
}

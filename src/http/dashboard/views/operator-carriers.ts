// The operator's carriers page (docs/carriers.md): every carrier's settings as the CLI set them, and this node's links
// to them (gateways' answers to OPTIONS, registrations). Read-only: carriers are changed with `ringbase carrier`.
import { html, type Html } from '../html.js';
import { csrfField } from '../forms.js';
import { page } from '../layout.js';
import { when } from '../format.js';
import { gatewayKey, hostAndPort, type Carrier, type CarrierGateway } from '../../../store/carriers.js';
import type { CarrierLinkStatus } from '../../../engine/port.js';

/** The operator pages' own navigation and sign-out, on each of them. */
export function operatorBar(csrf: string): Html {
  return html`<form class="inline" method="post" action="/dashboard/operator/sign-out">${csrfField(csrf)}<span class="hint">Signed in as the operator:
      <a href="/dashboard/operator/cluster">Cluster</a> · <a href="/dashboard/operator/carriers">Carriers</a>.</span>
      <button type="submit" class="link">Sign out</button></form>`;
}

function gatewayLine(c: Carrier, g: CarrierGateway, links: CarrierLinkStatus | null): Html {
  const health = links?.gateways.find((x) => x.gateway === gatewayKey(c.name, g));
  const state = health ? (health.up ? html`<span class="badge ok">answering</span>` : html`<span class="badge bad">not answering: skipped</span>`) : html`<span class="hint">not pinged</span>`;
  return html`<code>${hostAndPort(g.host, g.port)}</code> ${g.transport}, priority ${g.priority}, weight ${g.weight}: ${state}<br>`;
}

function registrationText(c: Carrier, links: CarrierLinkStatus | null): Html | string {
  if (!c.registration) return 'No';
  const r = links?.registrations.find((x) => x.carrier === c.name);
  const where = `to ${hostAndPort(c.registration.host, c.registration.port)} (${c.registration.transport})`;
  if (!r) return `Yes, ${where}; not started on this node`;
  if (r.state === 'registered') return html`<span class="badge ok">registered</span> ${where} until ${when(r.expiresAt!)}`;
  return html`<span class="badge bad">${r.state === 'failed' ? 'failing' : 'registering'}</span> ${where}${r.lastError ? `: ${r.lastError}` : ''}`;
}

export function operatorCarriersView(opts: { csrf: string; carriers: readonly Carrier[]; links: CarrierLinkStatus | null }): Html {
  const { carriers, links } = opts;
  return page({ title: 'Carriers', viewer: null }, html`
    ${operatorBar(opts.csrf)}
    <p>SIP providers: where calls to the numbers come from and where calls to numbers go. States are this node's.
      <a href="/dashboard/operator/carriers">Refresh</a></p>
    ${carriers.length === 0 ? html`<p>No carrier yet: add one with <code>ringbase carrier add</code>.</p>` : html`<div class="table-wrap"><table>
      <thead><tr><th scope="col">Carrier</th><th scope="col">Sources</th><th scope="col">Gateways</th><th scope="col">Routes</th>
        <th scope="col">Credentials</th><th scope="col">Registration</th><th scope="col">Numbers, keys, media</th></tr></thead>
      <tbody>${carriers.map((c) => html`<tr data-carrier="${c.name}"><td>${c.name}</td>
        <td>${c.sources.length ? c.sources.map((s) => html`<code>${s.network}</code>${s.port === null ? '' : `:${s.port}`}<br>`) : html`<span class="hint">none</span>`}</td>
        <td>${c.gateways.length ? c.gateways.map((g) => gatewayLine(c, g, links)) : html`<span class="hint">none</span>`}</td>
        <td>${c.routes.map((r) => html`<code>${r.prefix || '*'}</code> (priority ${r.priority}, weight ${r.weight})<br>`)}</td>
        <td>${c.auth ? html`<code>${c.auth.username}</code>${c.auth.realm ? ` at ${c.auth.realm}` : ''}, password set` : 'None'}</td>
        <td>${registrationText(c, links)}</td>
        <td>${c.numbers.format}${c.numbers.countryCode ? ` (+${c.numbers.countryCode})` : ''}${c.numbers.techPrefix ? `, tech prefix ${c.numbers.techPrefix}` : ''};
          keys ${c.dtmf}; ${c.codecs.length ? c.codecs.join(', ') : 'default codecs'}; SRTP ${c.srtp}${c.optionsPingS ? `; OPTIONS every ${c.optionsPingS} s` : ''}</td></tr>`)}</tbody>
    </table></div>`}
    <p class="hint">Change them with <code>ringbase carrier add|update|remove</code>; the same states: <code>ringbase carrier status</code>,
      or <code>GET /operator/carriers</code> with the operator token.</p>`);
}

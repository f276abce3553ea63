import { html, type Html } from '../html.js';
import { actionButton, copyable, page } from '../layout.js';
import type { Viewer } from '../context.js';
import type { Trunk } from '../../../store/trunks.js';
import type { Connection, IceServer } from '../../../trunks/connection.js';
import { statusBadge } from './trunks.js';
import { when } from '../format.js';

const PASSWORD_PLACEHOLDER = 'YOUR_SIP_PASSWORD';

/**
 * A minimal agent page for a wss trunk; the password stays a placeholder so copying never leaks it. It imports
 * JsSIP from `jssipUrl` (this platform's own copy), so it works on a network without the Internet.
 */
export function jssipSnippet(c: Connection, ice: IceServer[], jssipUrl: string): string {
  const iceJson = JSON.stringify(ice, null, 2).replace(/\n/g, '\n  ');
  return `<!-- Serve from your own site, to signed-in agents only: the SIP password is a long-lived credential. -->
<audio id="remote" autoplay></audio>
<script type="module">
  // JsSIP as an ES module, served by Ringbase (or copy the file to your own site).
  import JsSIP from ${JSON.stringify(jssipUrl)};
  // TURN credentials expire: fetch fresh ones on your server from GET /api/partner/trunks/{id}/connection.
  const pcConfig = { iceServers: ${iceJson} };
  const media = { mediaConstraints: { audio: true, video: false }, pcConfig };
  const ua = new JsSIP.UA({
    sockets: [new JsSIP.WebSocketInterface(${JSON.stringify(c.wss_url)})],
    uri: ${JSON.stringify(`sip:${c.username}@${c.sip_domain}`)},
    password: ${JSON.stringify(PASSWORD_PLACEHOLDER)},
    register: true,
  });
  ua.on('newRTCSession', ({ session, originator }) => {
    const hear = (pc) => pc.addEventListener('track', (e) => { document.getElementById('remote').srcObject = e.streams[0]; });
    if (session.connection) hear(session.connection);
    else session.on('peerconnection', ({ peerconnection }) => hear(peerconnection));
    // Ringbase calls a seat without an SDP offer (the browser makes it, with its DTLS and ICE details), so
    // the answer must ask for audio explicitly.
    if (originator === 'remote') session.answer({ ...media, rtcOfferConstraints: { offerToReceiveAudio: true } });
  });
  ua.start();
  // To place a call: ua.call('sip:+14155550100@${c.sip_domain}', media);
</script>`;
}

export function trunkView(v: Viewer, t: Trunk, c: Connection, ice: IceServer[], opts: { revealed: boolean; jssipUrl: string; notice?: string }): Html {
  const live = t.status !== 'revoked';
  return page({ title: `Trunk ${t.id}${t.label ? `: ${t.label}` : ''}`, viewer: v, section: 'trunks', notice: opts.notice }, html`
    <dl class="facts">
      <dt>Status</dt><dd>${statusBadge(t.status)}${t.status === 'pending' ? ' (being set up; calls flow once active)' : ''}</dd>
      <dt>Transport</dt><dd>${t.transport}</dd>
      <dt>Created</dt><dd>${when(t.created_at)}</dd>
      <dt>Voice webhook</dt><dd>${t.voice_webhook_url ?? '—'} (${t.voice_webhook_method})</dd>
      <dt>Fallback URL</dt><dd>${t.voice_fallback_url ? `${t.voice_fallback_url} (${t.voice_fallback_method})` : '—'}</dd>
      <dt>Transfer URL</dt><dd>${t.voice_refer_url ? `${t.voice_refer_url} (${t.voice_refer_method})` : '—'}</dd>
      <dt>Status callbacks</dt><dd>${t.status_callback_url ?? '—'} (${t.status_callback_events})</dd>
      <dt>Client reference</dt><dd>${t.client_ref ?? '—'}</dd>
    </dl>
    <h2>Connection</h2>
    <dl class="facts" id="connection">
      <dt>SIP domain</dt><dd><code>${c.sip_domain}</code></dd>
      <dt>Port</dt><dd><code>${c.sip_port}</code></dd>
      ${c.wss_url ? html`<dt>WSS URL</dt><dd><code id="wss-url">${c.wss_url}</code></dd>` : ''}
      <dt>Username</dt><dd><code id="sip-username">${c.username}</code></dd>
      <dt>Password</dt><dd>${!c.secret_available ? html`<em>unavailable (the master key changed); create a new trunk</em>`
        : opts.revealed ? copyable('sip-password', c.password ?? '', 'Copy password')
          : live ? actionButton(`/dashboard/trunks/${t.id}/reveal`, 'Reveal password', v.csrf) : html`<em>revoked</em>`}</dd>
    </dl>
    ${t.transport === 'wss' ? html`<h2>JsSIP agent page</h2>
      <p>A starting point for a browser agent seat. Replace <code>${PASSWORD_PLACEHOLDER}</code> with the password above when you
        serve the page to a signed-in agent.</p>
      ${copyable('jssip-snippet', jssipSnippet(c, ice, opts.jssipUrl), 'Copy snippet')}` : ''}
    ${live ? html`<h2>Change</h2><div class="actions"><a href="/dashboard/trunks/${t.id}/edit">Edit settings</a>
      ${actionButton(`/dashboard/trunks/${t.id}/revoke`, 'Revoke trunk', v.csrf, { danger: true, confirm: 'Revoke this trunk? Its logins stop working and no action undoes it.' })}</div>`
      : html`<p>This trunk is revoked; it is kept as history and cannot be changed.</p>`}`);
}

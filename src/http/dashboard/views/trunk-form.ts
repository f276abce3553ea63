import { html, type Html } from '../html.js';
import { csrfField, type FormRender } from '../forms.js';
import { page } from '../layout.js';
import type { Viewer } from '../context.js';
import { CALLBACK_EVENTS } from '../../schemas/trunk.js';

const METHODS = [['POST', 'POST'], ['GET', 'GET']] as const;

function fields(f: FormRender, create: boolean): Html {
  return html`<fieldset><legend>Trunk</legend>
    ${f.text('label', 'Label', { hint: 'Up to 255 characters.' })}
    ${f.text('client_ref', 'Client reference', { hint: 'Your own reference, up to 255 characters.' })}
    ${create ? f.select('transport', 'Transport', [['wss', 'WSS (browser agents, JsSIP)'], ['tcp', 'TCP'], ['tls', 'TLS'], ['udp', 'UDP']], { hint: 'Cannot be changed later.' }) : ''}
    ${f.text('sip_domain', 'SIP domain', { hint: 'Host name (such as sip.example.com) or IP address shown in the connection details; empty for the service default.' })}
  </fieldset>
  <fieldset><legend>Calls</legend>
    ${f.text('voice_webhook_url', 'Voice webhook URL', { type: 'url', hint: 'Each call arriving over the trunk is sent here; the XML returned is run.' })}
    ${f.select('voice_webhook_method', 'Voice webhook method', METHODS)}
    ${f.text('voice_fallback_url', 'Fallback URL', { type: 'url', hint: 'Asked when the voice webhook or an action URL does not answer, times out or answers 5xx.' })}
    ${f.select('voice_fallback_method', 'Fallback method', METHODS)}
    ${f.text('voice_refer_url', 'Transfer URL', { type: 'url', hint: 'Asked, with refer_transfer_target, when one side of a bridged call asks to transfer the other (SIP REFER); its document runs for the other side. Empty: such transfers are declined.' })}
    ${f.select('voice_refer_method', 'Transfer method', METHODS)}
    ${f.text('cli_lookup_url', 'Caller ID lookup URL', { type: 'url' })}
    ${f.select('cli_lookup_method', 'Caller ID lookup method', METHODS)}
    ${f.text('default_caller_id', 'Default caller ID', { hint: 'E.164, such as +14155550100.' })}
    ${f.textarea('allowed_caller_ids', 'Allowed caller IDs', { hint: 'One E.164 number per line, such as +14155550100.' })}
    ${f.checkbox('dual_channel_recording', 'Dual-channel recording (each side on its own channel)')}
  </fieldset>
  <fieldset><legend>Callbacks</legend>
    ${f.text('status_callback_url', 'Status callback URL', { type: 'url' })}
    ${f.text('status_callback_events', 'Status callback events', { hint: `Space-separated: ${CALLBACK_EVENTS.join(' ')}.` })}
    ${f.text('hangup_url', 'Hangup URL', { type: 'url', hint: 'Stored only.' })}
  </fieldset>`;
}

export function trunkFormView(v: Viewer, f: FormRender, opts: { trunkId?: number; problem?: string }): Html {
  const create = opts.trunkId === undefined;
  const body = fields(f, create);
  return page({ title: create ? 'New trunk' : `Edit trunk ${opts.trunkId}`, viewer: v, section: 'trunks' }, html`
    ${opts.problem ? html`<p class="field-error" role="alert">${opts.problem}</p>` : ''}
    ${f.summary()}
    <form method="post" action="${create ? '/dashboard/trunks' : `/dashboard/trunks/${opts.trunkId}/edit`}" novalidate>${csrfField(v.csrf)}
      ${body}
      <div class="actions"><button type="submit">${create ? 'Create trunk' : 'Save trunk'}</button>
        <a href="${create ? '/dashboard/trunks' : `/dashboard/trunks/${opts.trunkId}`}">Cancel</a></div>
    </form>`);
}

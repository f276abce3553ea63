import { html, type Html } from '../html.js';
import { csrfField, type FormRender } from '../forms.js';
import { actionButton, copyable, page } from '../layout.js';
import type { Viewer } from '../context.js';
import type { PhoneNumber } from '../../../numbers/repo.js';
import { WEEKDAYS } from '../../../numbers/settings.js';
import { IVR_KEYS } from '../number-form.js';
import { numberPath } from '../format.js';

const DAY_NAMES: Record<string, string> = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };

let zones: Array<[string, string]> | undefined;
function timezones(): Array<[string, string]> {
  zones ??= ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')].map((z) => [z, z.replace(/_/g, ' ')]);
  return zones;
}

const IVR_ACTIONS = [['', '— no action —'], ['forward', 'Forward to a number'], ['voicemail', 'Voicemail'], ['queue', 'Join a queue'],
  ['hangup', 'Hang up'], ['replay', 'Replay the menu']] as const;

function basics(f: FormRender): Html {
  return html`<fieldset><legend>Webhook</legend>
    ${f.text('webhook_url', 'Webhook URL', { type: 'url', placeholder: 'https://app.example.com/voice', hint: 'Receives each inbound call (POST, JSON body with from, to, direction).' })}
    ${f.text('fallback_url', 'Fallback URL', { type: 'url', hint: 'Asked (POST, with error_url and error_reason) when the webhook or an action URL does not answer, times out or answers 5xx.' })}
    ${f.text('refer_url', 'Transfer URL', { type: 'url', hint: 'Asked (POST, with refer_transfer_target) when one side of a bridged call asks to transfer the other (SIP REFER); its document runs for the other side. Empty: such transfers are declined.' })}
    ${f.select('response_format', 'Response format', [['xml', 'XML (full verb set)'], ['json', 'JSON (subset, no Gather)']])}
    ${f.text('hangup_url', 'Hangup URL', { type: 'url', hint: 'Receives the final status of every call on this number.' })}
    ${f.text('client_ref', 'Client reference', { hint: 'Up to 64 characters; sent as ClientRef in status callbacks.' })}
    ${f.checkbox('active', 'Active', { hint: 'When off, inbound calls are hung up without reaching the webhook and calls cannot be placed from the number.' })}
  </fieldset>`;
}

function schedule(f: FormRender): Html {
  return html`<fieldset><legend>Incoming schedule</legend>
    ${f.checkbox('schedule.enabled', 'Use business hours (otherwise always open)', { errorKeys: ['schedule', 'schedule.weekly'] })}
    ${f.select('schedule.timezone', 'Time zone', timezones())}
    <p class="hint">Hours per day as HH:MM-HH:MM, several separated by commas (09:00-12:30, 13:30-17:00). An empty day is closed.</p>
    ${WEEKDAYS.map((day) => f.text(`schedule.weekly.${day}`, DAY_NAMES[day]!, { placeholder: '09:00-17:00' }))}
    ${f.select('after_hours.action', 'After-hours action', [['hangup', 'Hang up'], ['voicemail', 'Voicemail'], ['forward', 'Forward to a number'], ['webhook', 'Ask a different webhook']], { errorKeys: ['after_hours'] })}
    <div data-show-when="f-after_hours-action=forward">${f.text('after_hours.number', 'Forward to (E.164)', { type: 'tel', placeholder: '+14155550100' })}</div>
    <div data-show-when="f-after_hours-action=webhook">${f.text('after_hours.url', 'After-hours webhook URL', { type: 'url' })}</div>
  </fieldset>`;
}

function ivr(f: FormRender): Html {
  return html`<fieldset><legend>Incoming IVR menu</legend>
    ${f.checkbox('ivr.enabled', 'Menu on (callers hear it instead of the webhook)', { errorKeys: ['ivr', 'ivr.keys'] })}
    ${f.textarea('ivr.prompt', 'Prompt', { hint: 'Read to the caller, e.g. "Press 1 for sales, 2 for support."' })}
    ${f.text('ivr.timeout_seconds', 'Seconds to wait for a key', { inputmode: 'numeric' })}
    <div class="table-wrap"><table class="ivr-keys">
      <thead><tr><th scope="col">Key</th><th scope="col">Action</th><th scope="col">Number or queue</th></tr></thead>
      <tbody>${IVR_KEYS.map((key) => html`<tr><th scope="row">${key}</th>
        <td>${f.select(`ivr.keys.${key}.action`, `Key ${key} action`, IVR_ACTIONS, { hiddenLabel: true })}</td>
        <td>${f.text(`ivr.keys.${key}.target`, `Key ${key} number or queue`, { hiddenLabel: true, errorKeys: [`ivr.keys.${key}.number`, `ivr.keys.${key}.queue`] })}</td></tr>`)}
      </tbody></table></div>
  </fieldset>`;
}

function recording(f: FormRender): Html {
  return html`<fieldset><legend>Recording policy</legend>
    ${f.select('recording.mode', 'Mode', [['off', 'Off'], ['from-answer', 'From answer'], ['from-ringing', 'From ringing']], { errorKeys: ['recording'] })}
    ${f.select('recording.tracks', 'Tracks', [['both', 'Both (two channels)'], ['inbound', 'Inbound'], ['outbound', 'Outbound']])}
    ${f.text('recording.callback_url', 'Recording callback URL (optional)', { type: 'url' })}
    ${f.checkbox('recording.immutable', 'Immutable (recording cannot be paused or stopped through the API or markup)')}
  </fieldset>`;
}

export function numberView(v: Viewer, n: PhoneNumber, f: FormRender, notice?: string): Html {
  // Fields first: the summary lists what they did not show.
  const fields = html`${basics(f)}${schedule(f)}${ivr(f)}${recording(f)}`;
  return page({ title: n.e164, viewer: v, section: 'numbers', notice }, html`
    <p>Use this exact value as <code>from</code> when placing calls:</p>
    ${copyable('from-value', n.e164, 'Copy number')}
    ${f.summary()}
    <form method="post" action="${numberPath(n.e164)}" novalidate>${csrfField(v.csrf)}
      ${fields}
      <div class="actions"><button type="submit">Save settings</button> <a href="/dashboard/test-call?to=${encodeURIComponent(n.e164)}">Try it with a test call</a></div>
    </form>
    <h2>Release</h2>
    <p>Returns the number to the pool and resets its settings.</p>
    ${actionButton(`${numberPath(n.e164)}/release`, 'Release this number', v.csrf, { danger: true, confirm: `Release ${n.e164}? Calls to it will stop reaching you.` })}`);
}

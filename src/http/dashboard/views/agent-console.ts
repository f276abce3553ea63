import { html, type Html } from '../html.js';
import { actionButton, page } from '../layout.js';
import type { Viewer } from '../context.js';
import { csrfField, FormRender } from '../forms.js';
import type { Agent } from '../../../acd/agents.js';
import type { Trunk } from '../../../store/trunks.js';

/** What the agent sees of the call it is offered or on: who calls, from which queue, how long they waited, and the lead's details. */
export interface ScreenPop { callSid: string; from: string; queue: string | null; waitSeconds: number | null; attributes: Record<string, string> }

const STATUS_BUTTONS: ReadonlyArray<readonly [Agent['status'], string]> = [['available', 'Available'], ['break', 'Break'], ['offline', 'Offline']];

const MODES: ReadonlyArray<readonly [string, string]> = [['monitor', 'Listen (heard by nobody)'], ['whisper', 'Whisper (heard by the agent only)'], ['barge', 'Barge (heard by both)']];

/** A supervisor calls a phone or seat of theirs into the agent's call (POST /v1/agents/{sid}/monitor). */
function supervisorForm(v: Viewer, a: Agent, form: FormRender): Html {
  return html`<form method="post" action="/dashboard/agents/${a.sid}/monitor" id="monitor-form" novalidate><fieldset><legend>Supervise this call</legend>${csrfField(v.csrf)}${form.summary()}
    ${form.text('to', 'Your phone', { hint: 'An E.164 number, a sip: URI or client:<your seat>. It rings, and joins the call when you answer.' })}
    ${form.select('mode', 'Mode', MODES)}
    <div class="actions"><button type="submit">Call me into this call</button></div></fieldset></form>`;
}

export function agentLive(v: Viewer, a: Agent, pop: ScreenPop | null, wrapUp: FormRender | null, supervise: FormRender | null = null): Html {
  return html`<p>Status: <strong id="agent-status">${a.status}</strong>${a.breakReason ? ` (${a.breakReason})` : ''} · Activity: <strong id="agent-activity">${a.activity}</strong></p>
    <div class="actions">${STATUS_BUTTONS.filter(([s]) => s !== a.status).map(([s, label]) =>
      actionButton(`/dashboard/agents/${a.sid}/status`, label, v.csrf, { hidden: { status: s } }))}</div>
    ${pop ? html`<section id="screen-pop" aria-label="The call"><h2>${a.activity === 'wrap-up' ? 'Last call' : 'Call'}</h2>
      <dl class="facts"><dt>Caller</dt><dd class="e164">${pop.from}</dd>${pop.queue ? html`<dt>Queue</dt><dd>${pop.queue}</dd>` : ''}
      ${pop.waitSeconds !== null ? html`<dt>Waited</dt><dd>${pop.waitSeconds} s</dd>` : ''}
      ${Object.entries(pop.attributes).map(([k, val]) => html`<dt>${k}</dt><dd>${val}</dd>`)}
      <dt>Call</dt><dd><a href="/dashboard/calls/${pop.callSid}">${pop.callSid}</a></dd></dl></section>` : ''}
    ${wrapUp && pop ? html`<form method="post" action="/dashboard/agents/${a.sid}/disposition" id="disposition-form" novalidate>${csrfField(v.csrf)}${wrapUp.summary()}
      <input type="hidden" name="call_sid" value="${pop.callSid}">
      ${wrapUp.text('disposition', 'Disposition', { hint: 'The outcome, e.g. sale or no-interest. Setting it ends your wrap-up.' })}
      ${wrapUp.textarea('notes', 'Notes', { rows: 3 })}
      <div class="actions"><button type="submit">Save disposition</button></div></form>` : ''}
    ${a.activity === 'busy' ? supervisorForm(v, a, supervise ?? new FormRender({ mode: 'monitor' })) : ''}`;
}

/** The agent console: status, the offered call's screen pop, wrap-up, and (for a wss seat) the softphone. */
export function agentView(v: Viewer, a: Agent, seat: Trunk | undefined, live: Html, ice: unknown, notice?: string): Html {
  return page({ title: `Agent ${a.friendlyName}`, viewer: v, section: 'queues', notice }, html`
    <div id="agent-message"></div>
    <div id="agent-live" data-refresh="/dashboard/agents/${a.sid}/live" data-interval="1000" data-message="agent-message">${live}</div>
    <h2>Softphone</h2>
    ${seat?.transport === 'wss' ? html`<div id="softphone" data-state="disconnected" data-credentials="/dashboard/agents/${a.sid}/seat" data-csrf="${v.csrf}" data-ice="${JSON.stringify(ice)}">
      <p id="phone-state" role="status">Not connected. Connect to take calls in this browser.</p>
      <div class="actions"><button type="button" id="phone-connect">Connect softphone</button><button type="button" id="phone-answer" hidden>Answer</button>
        <button type="button" id="phone-hangup" class="danger" hidden>Hang up</button></div>
      <p><label for="phone-level">What you hear</label> <meter id="phone-level" min="0" max="1" value="0"></meter></p>
      <audio id="phone-audio" autoplay></audio></div>
    <script type="module" src="/dashboard/assets/softphone.js"></script>`
    : html`<p>This agent's seat is ${seat ? `a ${seat.transport} trunk` : 'gone'}: offered calls ring the phone registered on it. A wss seat gets a softphone here.</p>`}
    <p><a href="/dashboard/queues">Back to queues and agents</a></p>`);
}

import { html, type Html } from '../html.js';
import { page, actionButton } from '../layout.js';
import type { Viewer } from '../context.js';
import type { Conference, Participant } from '../../../conferences/repo.js';
import type { CallRecord } from '../../../store/calls.js';
import { when } from '../format.js';

export function conferencesView(v: Viewer, conferences: Array<{ c: Conference; count: number }>): Html {
  return page({ title: 'Conferences', viewer: v, section: 'conferences' }, html`
    ${conferences.length === 0 ? html`<p>No conferences yet. Callers join one with <code>&lt;Dial&gt;&lt;Conference&gt;name&lt;/Conference&gt;&lt;/Dial&gt;</code>, or add participants through the API (docs/conferences.md).</p>`
    : html`<div class="table-wrap"><table id="conferences">
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">In the room</th><th scope="col">Created</th></tr></thead>
      <tbody>${conferences.map(({ c, count }) => html`<tr><td><a href="/dashboard/conferences/${c.sid}">${c.friendlyName}</a></td>
        <td>${c.status}</td><td>${count}</td><td>${when(c.createdAt)}</td></tr>`)}</tbody></table></div>`}`);
}

const short = (sid: string) => `${sid.slice(0, 10)}…`;

/**
 * The live part of a conference's page: its state, the participants with their buttons, and End conference.
 * Also served alone, so the page can refresh it in place; once the conference is over no buttons are offered.
 */
export function conferenceLive(v: Viewer, c: Conference, parts: Array<{ p: Participant; call: CallRecord | undefined }>): Html {
  const open = c.status !== 'completed';
  const act = (p: Participant, what: string, label: string, confirm?: string) =>
    actionButton(`/dashboard/conferences/${c.sid}/participants/${p.callSid}/${what}`, label, v.csrf, confirm ? { danger: true, confirm } : {});
  return html`<p>Status: <strong id="conference-status">${c.status}</strong>${c.endReason ? ` (${c.endReason})` : ''}</p>
    ${parts.length === 0 ? html`<p>No participants.</p>` : html`<div class="table-wrap"><table id="participants" class="stack">
    <thead><tr><th scope="col">Call</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Status</th><th scope="col">Muted</th><th scope="col">On hold</th><th scope="col">Coaching</th><th scope="col">Actions</th></tr></thead>
    <tbody>${parts.map(({ p, call }) => html`<tr id="p-${p.callSid}"><td data-label="Call"><a href="/dashboard/calls/${p.callSid}">${short(p.callSid)}</a></td>
      <td class="from" data-label="From">${call?.from ?? ''}</td><td class="to" data-label="To">${call?.to ?? ''}</td><td class="status" data-label="Status">${p.status}</td>
      <td class="muted" data-label="Muted">${p.muted ? 'yes' : 'no'}</td><td class="hold" data-label="On hold">${p.hold ? 'yes' : 'no'}</td>
      <td data-label="Coaching">${p.coaching && p.callSidToCoach ? `coaching ${short(p.callSidToCoach)}` : 'no'}</td>
      <td data-label="Actions">${open && p.status !== 'completed' ? html`<div class="row-actions">${act(p, p.muted ? 'unmute' : 'mute', p.muted ? 'Unmute' : 'Mute')}
        ${act(p, p.hold ? 'unhold' : 'hold', p.hold ? 'Take off hold' : 'Hold')}
        ${act(p, 'remove', 'Remove', 'Remove this participant? Their call is disconnected.')}</div>` : ''}</td></tr>`)}</tbody></table></div>`}
    ${open ? html`<div class="actions">${actionButton(`/dashboard/conferences/${c.sid}/end`, 'End conference', v.csrf, { danger: true, confirm: 'End this conference? Every participant is disconnected.' })}</div>` : ''}`;
}

/** `problem` is a refused action, shown where the page's script also puts the outcome of a button it posted. */
export function conferenceView(v: Viewer, c: Conference, live: Html, problem?: string, notice?: string): Html {
  return page({ title: `Conference ${c.friendlyName}`, viewer: v, section: 'conferences', notice }, html`
    <dl class="facts"><dt>Sid</dt><dd><code>${c.sid}</code></dd><dt>Created</dt><dd>${when(c.createdAt)}</dd>
      <dt>Started</dt><dd>${when(c.startedAt)}</dd><dt>Ended</dt><dd>${when(c.endedAt)}</dd><dt>Recorded</dt><dd>${c.record ? 'yes' : 'no'}</dd></dl>
    <h2>Participants</h2>
    <div id="conference-message">${problem ? html`<p class="field-error" role="alert">${problem}</p>` : ''}</div>
    <div id="conference-live" data-refresh="/dashboard/conferences/${c.sid}/live" data-message="conference-message">${live}</div>
    <p><a href="/dashboard/conferences">Back to conferences</a></p>`);
}

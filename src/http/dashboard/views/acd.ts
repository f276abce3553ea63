import { html, type Html } from '../html.js';
import { page } from '../layout.js';
import type { Viewer } from '../context.js';
import type { FormRender } from '../forms.js';
import type { Queue, QueueFigures } from '../../../acd/queues.js';
import type { Agent } from '../../../acd/agents.js';
import type { Trunk } from '../../../store/trunks.js';
import { csrfField } from '../forms.js';

export interface QueueLine { q: Queue; f: QueueFigures }

const ACTIVITY: Record<Agent['activity'], string> = { idle: 'idle', reserved: 'being offered a call', ringing: 'ringing', busy: 'on a call', 'wrap-up': 'wrapping up' };

/** The live part of the queues page: each queue's line and every agent's state, refreshed every 2 s. */
export function queuesLive(queues: QueueLine[], agents: Agent[], queueName: (sid: string) => string): Html {
  return html`${queues.length === 0 ? html`<p>No queues yet. Create one below, or let markup name one: <code>&lt;Enqueue&gt;support&lt;/Enqueue&gt;</code>.</p>`
    : html`<div class="table-wrap"><table id="queues" class="stack"><thead><tr><th scope="col">Queue</th><th scope="col">Waiting</th><th scope="col">Longest wait</th><th scope="col">Agents free</th><th scope="col">Ring, wrap-up</th></tr></thead>
    <tbody>${queues.map(({ q, f }) => html`<tr id="q-${q.sid}"><td data-label="Queue">${q.friendlyName}</td><td class="size" data-label="Waiting">${f.size}</td>
      <td data-label="Longest wait">${f.longestWaitSeconds} s</td><td class="free" data-label="Agents free">${f.agentsAvailable}</td>
      <td data-label="Ring, wrap-up">${q.ringTimeoutSeconds} s, ${q.wrapUpSeconds} s</td></tr>`)}</tbody></table></div>`}
    <h2>Agents</h2>
    ${agents.length === 0 ? html`<p>No agents yet. An agent needs a seat: a trunk of this account (a wss seat for the browser softphone).</p>`
    : html`<div class="table-wrap"><table id="agents" class="stack"><thead><tr><th scope="col">Agent</th><th scope="col">Status</th><th scope="col">Activity</th><th scope="col">Queues</th></tr></thead>
    <tbody>${agents.map((a) => html`<tr id="a-${a.sid}"><td data-label="Agent"><a href="/dashboard/agents/${a.sid}">${a.friendlyName}</a></td>
      <td class="status" data-label="Status">${a.status}${a.breakReason ? ` (${a.breakReason})` : ''}</td><td class="activity" data-label="Activity">${ACTIVITY[a.activity]}</td>
      <td data-label="Queues">${a.queueSids.map(queueName).join(', ')}</td></tr>`)}</tbody></table></div>`}`;
}

export function queuesView(v: Viewer, live: Html, forms: { queue: FormRender; agent: FormRender }, seats: readonly Trunk[], queues: Queue[], notice?: string): Html {
  const seatOptions = seats.map((t) => [String(t.id), `Trunk ${t.id}${t.label ? `: ${t.label}` : ''} (${t.transport})`] as const);
  return page({ title: 'Queues and agents', viewer: v, section: 'queues', notice }, html`
    <div id="acd-message"></div>
    <div id="acd-live" data-refresh="/dashboard/queues/live" data-message="acd-message">${live}</div>
    <h2>New queue</h2>
    <form method="post" action="/dashboard/queues" novalidate>${csrfField(v.csrf)}${forms.queue.summary()}
      ${forms.queue.text('friendly_name', 'Name', { hint: 'How markup names it: <Enqueue>name</Enqueue>. 1 to 64 characters.' })}
      <div class="actions"><button type="submit">Create queue</button></div></form>
    <h2>New agent</h2>
    ${seats.length === 0 ? html`<p>Create a trunk first (<a href="/dashboard/trunks">Trunks</a>): it is the agent's seat, where offered calls ring.</p>`
    : html`<form method="post" action="/dashboard/agents" novalidate>${csrfField(v.csrf)}${forms.agent.summary()}
      ${forms.agent.text('friendly_name', 'Name')}
      ${forms.agent.select('trunk_id', 'Seat', seatOptions, { hint: 'Offered calls ring here. A wss seat can use the softphone on the agent page.' })}
      ${forms.agent.select('queue', 'Queue', [['', 'None yet'], ...queues.map((q) => [q.sid, q.friendlyName] as const)])}
      <div class="actions"><button type="submit">Create agent</button></div></form>`}`);
}

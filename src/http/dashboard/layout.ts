import { html, type Html } from './html.js';
import { csrfField } from './forms.js';
import type { Viewer } from './context.js';

export type Section = 'numbers' | 'calls' | 'conferences' | 'queues' | 'test-call' | 'keys' | 'trunks' | 'subscriptions' | 'settings';

const NAV: ReadonlyArray<readonly [Section, string, string]> = [
  ['numbers', 'Numbers', '/dashboard/numbers'],
  ['calls', 'Calls', '/dashboard/calls'],
  ['conferences', 'Conferences', '/dashboard/conferences'],
  ['queues', 'Queues', '/dashboard/queues'],
  ['test-call', 'Test call', '/dashboard/test-call'],
  ['keys', 'API keys', '/dashboard/keys'],
  ['trunks', 'Trunks', '/dashboard/trunks'],
  ['subscriptions', 'Webhooks', '/dashboard/subscriptions'],
  ['settings', 'Settings', '/dashboard/settings'],
];

/** Confirmation messages after a redirect, chosen by a fixed key so a URL cannot put text on the page. */
const NOTICES: Record<string, string> = {
  saved: 'Settings saved.',
  claimed: 'Number claimed. Set its webhook below.',
  released: 'Number released to the pool.',
  'key-deleted': 'API key deleted. Requests using it are now refused.',
  'trunk-saved': 'Trunk saved.',
  'trunk-revoked': 'Trunk revoked.',
  rotated: 'Signing secret rotated. Update your webhook verification with the new secret.',
  'signed-out': 'You are signed out.',
  'conference-ended': 'Conference ended: every participant was disconnected.',
  'call-ended': 'Call ended.',
  'call-redirected': 'Call redirected: the new instructions are running.',
  'participant-updated': 'Participant updated.',
  'participant-removed': 'Participant removed: its call was disconnected.',
  'queue-created': 'Queue created.',
  'agent-created': 'Agent created, offline: make it available to offer it calls.',
  'agent-status': 'Status changed.',
  'disposition-saved': 'Disposition saved: wrap-up is over.',
  'supervisor-called': 'Your phone is ringing: answer it to join the call.',
  'password-set': 'Password set. Sign in with it now.',
  'subscription-paused': 'Subscription paused: nothing is delivered to it until you resume it.',
  'subscription-resumed': 'Subscription resumed: deliveries held while it was paused go out now.',
  'subscription-deleted': 'Subscription deleted: pending deliveries were dropped.',
  'test-event-queued': 'Test event sent. Its delivery appears below within a few seconds; reload to see it.',
  'redelivery-queued': 'Redelivery queued. It appears below as a new delivery.',
  'node-draining': 'Node asked to drain: it takes no new calls from its next heartbeat (2 s) and stops once its calls have ended.',
  'operator-signed-out': 'You are signed out as the operator.',
};

interface PageOpts {
  title: string;
  viewer: Viewer | null;
  section?: Section;
  notice?: string | undefined;
}

export function page(opts: PageOpts, body: Html): Html {
  const notice = opts.notice ? NOTICES[opts.notice] : undefined;
  const v = opts.viewer;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · Ringbase</title>
<link rel="stylesheet" href="/dashboard/assets/app.css">
<link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">
<script src="/dashboard/assets/app.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/dashboard">Ringbase</a>
  ${v ? html`<nav aria-label="Main"><ul>${NAV.map(([key, label, href]) =>
    html`<li><a href="${href}"${key === opts.section ? html` aria-current="page"` : ''}>${label}</a></li>`)}</ul></nav>
  <form class="signout" method="post" action="/dashboard/logout">${csrfField(v.csrf)}
    <span class="who">${v.user.email} · ${v.account.name}</span> <button type="submit" class="link">Sign out</button></form>` : ''}
</header>
<main id="main" tabindex="-1">
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<h1>${opts.title}</h1>
${body}
</main>
</body>
</html>`;
}

/** A one-button form (claim, release, delete, revoke): POST with the CSRF token, optional confirmation. */
export function actionButton(action: string, label: string, csrf: string, opts: { confirm?: string; danger?: boolean; hidden?: Record<string, string> } = {}): Html {
  return html`<form method="post" action="${action}" class="inline"${opts.confirm ? html` data-confirm="${opts.confirm}"` : ''}>${csrfField(csrf)}${
    Object.entries(opts.hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}<button type="submit"${opts.danger ? html` class="danger"` : ''}>${label}</button></form>`;
}

/** Text with a button copying it (the button appears only with JavaScript; the text stays selectable). */
export function copyable(id: string, text: string, label = 'Copy'): Html {
  return html`<div class="copyable"><pre id="${id}"><code>${text}</code></pre><button type="button" class="copy" data-copy="${id}" hidden>${label}</button></div>`;
}

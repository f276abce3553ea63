import type { FastifyInstance } from 'fastify';
import { SOFTPHONE_JS } from './softphone.js';
import { jssipBundle } from './jssip.js';

// Inline rather than files on disk: the compiled server in dist/ would not find .css/.js next to it.
const CSS = `
:root { --fg:#1b1f24; --muted:#57606a; --bg:#fff; --line:#d0d7de; --accent:#0b57d0; --bad:#b3261e; --ok:#116329; --soft:#f6f8fa; }
* { box-sizing: border-box; }
body { margin:0; font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg); }
a { color:var(--accent); }
:focus-visible { outline:3px solid #f9ab00; outline-offset:2px; }
.skip { position:absolute; left:-999px; } .skip:focus { left:8px; top:8px; background:#fff; padding:4px 8px; z-index:9; }
.visually-hidden { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
header.top { display:flex; flex-wrap:wrap; align-items:center; gap:8px 16px; padding:8px 16px; border-bottom:1px solid var(--line); background:var(--soft); }
.brand { font-weight:700; text-decoration:none; color:var(--fg); }
nav ul { display:flex; flex-wrap:wrap; gap:4px 12px; list-style:none; margin:0; padding:0; }
nav a[aria-current] { font-weight:700; text-decoration:none; color:var(--fg); }
.signout { margin-left:auto; font-size:14px; color:var(--muted); }
main { max-width:960px; margin:0 auto; padding:16px; }
h1 { font-size:1.6rem; margin:.4em 0 .6em; } h2 { font-size:1.2rem; margin-top:1.6em; }
table { border-collapse:collapse; width:100%; margin:8px 0 16px; font-size:15px; }
th, td { text-align:left; padding:6px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
th { background:var(--soft); }
.table-wrap { overflow-x:auto; }
fieldset { border:1px solid var(--line); border-radius:6px; margin:16px 0; padding:8px 16px 16px; }
legend { font-weight:700; padding:0 4px; }
.field { margin:10px 0; }
.field label { display:block; font-weight:600; margin-bottom:2px; }
.field-inline { display:flex; flex-wrap:wrap; align-items:center; gap:6px; }
.field-inline label { display:inline; margin:0; }
.field-inline .hint, .field-inline .field-error { flex-basis:100%; }
input[type=text], input[type=url], input[type=tel], input[type=email], input[type=password], input[type=number], input[type=date], select, textarea {
  width:100%; max-width:36rem; padding:6px 8px; font:inherit; border:1px solid #8c959f; border-radius:4px; background:#fff; }
td input[type=text], td select { max-width:none; }
.hint { color:var(--muted); font-size:14px; margin:2px 0; }
.has-error input, .has-error select, .has-error textarea { border-color:var(--bad); border-width:2px; }
.field-error { color:var(--bad); font-weight:600; margin:4px 0; }
.error-summary { border:2px solid var(--bad); border-radius:6px; padding:8px 16px; margin:12px 0; }
.error-summary h2 { margin:0; font-size:1.05rem; color:var(--bad); }
.notice { border-left:4px solid var(--ok); background:#eef7ee; padding:8px 12px; }
.warning { border-left:4px solid #bf8700; background:#fff8c5; padding:8px 12px; }
button { font:inherit; padding:6px 14px; border-radius:4px; border:1px solid #1f6feb; background:var(--accent); color:#fff; cursor:pointer; }
button.secondary, button.copy { background:#fff; color:var(--accent); }
button.danger { background:#fff; color:var(--bad); border-color:var(--bad); }
button.link { background:none; border:none; color:var(--accent); padding:0; text-decoration:underline; }
form.inline { display:inline; }
.actions { display:flex; flex-wrap:wrap; gap:8px; align-items:center; margin:12px 0; }
.row-actions { display:flex; flex-wrap:wrap; gap:4px; }
pre { background:var(--soft); border:1px solid var(--line); border-radius:4px; padding:8px; overflow-x:auto; font-size:14px; white-space:pre-wrap; word-break:break-all; }
.copyable { position:relative; } .copyable .copy { margin-top:4px; }
.secret { font-family:ui-monospace,monospace; font-size:15px; word-break:break-all; }
dl.facts { display:grid; grid-template-columns:max-content 1fr; gap:4px 16px; } dl.facts dt { font-weight:600; } dl.facts dd { margin:0; word-break:break-all; }
.e164 { font-family:ui-monospace,monospace; font-weight:700; }
td.wrap { word-break:break-all; }
.badge { display:inline-block; padding:0 8px; border-radius:10px; font-size:13px; background:var(--soft); border:1px solid var(--line); }
.badge.ok { color:var(--ok); border-color:var(--ok); } .badge.bad { color:var(--bad); border-color:var(--bad); }
.filters { display:flex; flex-wrap:wrap; gap:8px 16px; align-items:flex-end; } .filters .field { margin:0; }
ol.transcript { list-style:none; padding:0; } ol.transcript li { padding:4px 8px; border-bottom:1px solid var(--line); }
ol.transcript .t { color:var(--muted); font-family:ui-monospace,monospace; font-size:13px; margin-right:8px; }
li.caller { background:#eef4ff; } li.platform { color:#333; }
audio { width:100%; max-width:32rem; }
/* A call's page is titled with its SID, one long word: it wraps on a phone. */
h1 { overflow-wrap:anywhere; }
svg.chart, svg.waterfall { display:block; font-size:12px; fill:var(--fg); }
svg .axis, svg .grid { stroke:var(--line); } svg .bar rect { fill:var(--accent); } svg .value, svg .tick { fill:var(--muted); } svg .value { font-size:11px; }
.charts { display:grid; grid-template-columns:repeat(auto-fit, minmax(280px, 1fr)); gap:0 24px; }
.step rect { fill:var(--accent); } .step.webhook rect { fill:#8250df; } .step.keys rect { fill:#bf8700; }
.step.call rect { fill:var(--ok); } .step.callback rect { fill:var(--muted); } .step.error rect { fill:var(--bad); }
@media (max-width:600px) { main { padding:10px; } th, td { padding:4px; } .signout { margin-left:0; } dl.facts { grid-template-columns:1fr; } }
/* On a phone a wide table with buttons (a conference's participants) becomes one labelled block per row. */
@media (max-width:600px) {
  table.stack thead { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); }
  table.stack tr { display:block; border-bottom:1px solid var(--line); padding:6px 0; }
  table.stack td { display:flex; gap:8px; border:none; padding:2px 4px; }
  table.stack td::before { content:attr(data-label); font-weight:600; min-width:6rem; }
}
`;

// Progressive enhancement only: every feature works without it.
const JS = `
document.addEventListener('submit', function (e) {
  var msg = e.target.getAttribute && e.target.getAttribute('data-confirm');
  if (msg && !window.confirm(msg)) e.preventDefault();
});
// Replaces a live part's content only when it changed (a rewrite would lose the keyboard focus), keeping the focus
// on the same button of the same row.
function swapLive(box, text) {
  var tpl = document.createElement('template');
  tpl.innerHTML = text;
  if (tpl.innerHTML === box.innerHTML) return;
  var focused = box.contains(document.activeElement) ? document.activeElement : null;
  var row = focused && focused.closest('tr[id]');
  var index = row ? Array.prototype.indexOf.call(row.querySelectorAll('button'), focused) : -1;
  box.replaceChildren(tpl.content);
  var again = row && document.getElementById(row.id);
  var target = again && again.querySelectorAll('button')[index];
  if (target) target.focus();
}
// Buttons inside a live part post in the background: the answer (the page after the redirect, or a refusal) is
// read for its copy of the live part and its message. Any other answer (the sign-in page, an error page) and a
// network failure fall back to an ordinary submit, which shows it.
document.addEventListener('submit', function (e) {
  var form = e.target, box = form.closest && form.closest('[data-refresh]');
  if (e.defaultPrevented || !box || !window.fetch || !window.DOMParser) return;
  e.preventDefault();
  box.seq++; box.busy = true;
  fetch(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form)), credentials: 'same-origin' })
    .then(function (r) { return r.text(); }).then(function (text) {
      var doc = new DOMParser().parseFromString(text, 'text/html');
      var fresh = doc.getElementById(box.id);
      if (!fresh) { form.submit(); return; }
      swapLive(box, fresh.innerHTML);
      var slot = document.getElementById(box.getAttribute('data-message'));
      var notice = doc.querySelector('main > .notice'), said = doc.getElementById(slot.id);
      document.querySelectorAll('main > .notice').forEach(function (old) { old.remove(); });
      slot.innerHTML = (notice ? notice.outerHTML : '') + (said ? said.innerHTML : '');
    }).catch(function () { form.submit(); }).finally(function () { box.busy = false; });
});
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('button[data-copy]').forEach(function (b) {
    b.hidden = false;
    b.addEventListener('click', function () {
      var el = document.getElementById(b.getAttribute('data-copy'));
      if (!el || !navigator.clipboard) return;
      navigator.clipboard.writeText(el.textContent.trim()).then(function () {
        var old = b.textContent; b.textContent = 'Copied'; setTimeout(function () { b.textContent = old; }, 1500);
      });
    });
  });
  // Live parts of a page (a conference's participants) re-fetch their HTML every 2 s while the page is visible.
  // A poll answered after a button's post started is dropped (it may predate the change); a redirect means the
  // session ended: reloading shows the sign-in page.
  document.querySelectorAll('[data-refresh]').forEach(function (box) {
    box.seq = 0; box.busy = false;
    // A part may poll faster (data-interval, ms) and stops once its content says it is final (a test call that ended).
    var timer = setInterval(function () {
      if (box.querySelector('[data-final]')) { clearInterval(timer); return; }
      if (document.hidden || box.busy) return;
      var mine = box.seq;
      fetch(box.getAttribute('data-refresh'), { credentials: 'same-origin' }).then(function (r) {
        if (r.redirected) { location.reload(); return null; }
        return r.ok ? r.text() : null;
      }).then(function (text) { if (text !== null && mine === box.seq && !box.busy) swapLive(box, text); }).catch(function () {});
    }, Number(box.getAttribute('data-interval')) || 2000);
  });
  var summary = document.getElementById('error-summary');
  if (summary) summary.focus();
  document.querySelectorAll('[data-show-when]').forEach(function (box) {
    var spec = box.getAttribute('data-show-when').split('=');
    var ctl = document.getElementById(spec[0]);
    if (!ctl) return;
    var values = spec[1].split('|');
    var sync = function () { box.hidden = values.indexOf(ctl.type === 'checkbox' ? (ctl.checked ? 'on' : '') : ctl.value) < 0; };
    ctl.addEventListener('change', sync); sync();
  });
});
`;

// A ringing-phone mark in the brand colour; SVG, so one small file serves every size.
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b57d0"/>
<path fill="#fff" d="M10.5 7.5c.8-.3 1.7 0 2.1.8l1.6 3.3c.3.7.2 1.5-.4 2l-1.5 1.3c.9 1.9 2.4 3.4 4.3 4.3l1.3-1.5c.5-.6 1.3-.7 2-.4l3.3 1.6c.8.4 1.1 1.3.8 2.1l-.8 2.1c-.4 1-1.4 1.6-2.5 1.5C13.9 24 8 18.1 7.4 11.4c-.1-1.1.5-2.1 1.5-2.5z"/></svg>`;

export function assetRoutes(app: FastifyInstance): void {
  const cache = 'public, max-age=300';
  app.get('/assets/favicon.svg', async (_req, reply) => reply.type('image/svg+xml').header('cache-control', cache).send(FAVICON));
  app.get('/assets/app.css', async (_req, reply) => reply.type('text/css; charset=utf-8').header('cache-control', cache).send(CSS));
  app.get('/assets/app.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', cache).send(JS));
  app.get('/assets/softphone.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', cache).send(SOFTPHONE_JS));
  // Any origin may import it: customers' own agent pages (the trunk page's snippet) load it as a module, which the
  // browser fetches in CORS mode. It is the public library, the same for everyone, and carries no credential.
  app.get('/assets/jssip.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', cache)
    .header('access-control-allow-origin', '*').send(await jssipBundle()));
}

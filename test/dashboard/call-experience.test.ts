// The dashboard's call experience over real HTTP: a test call that runs in the background with a transcript the
// page polls, timelines in sentences with the right final cause, the waterfall, and the home page's charts.
import t from 'tap';
import { startHarness, type Harness } from '../helpers/harness.js';
import { scaledClock } from '../helpers/scaled-clock.js';
import { startWebhookApp, xml } from '../helpers/webhook-app.js';
import { DEFAULT_NUMBER_SETTINGS } from '../../src/numbers/settings.js';
import { DashboardClient, PASSWORD, accountWithUser } from './client.js';
import { newSid } from '../../src/crypto/tokens.js';

const NUMBER = '+15550001000';

async function signedIn(h: Harness, webhook: string | null) {
  const a = await accountWithUser(h, 'calls@example.com');
  await h.store.numbers.add(NUMBER, a.id, { ...DEFAULT_NUMBER_SETTINGS, webhook_url: webhook });
  const c = new DashboardClient(h.url);
  await c.signIn('calls@example.com', PASSWORD);
  return { a, c };
}

/** Polls the transcript the way the page does, until it says the call ended. */
async function finishedTranscript(c: DashboardClient): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const live = await c.get('/dashboard/test-call/live');
    if (/data-final/.test(live.text)) return live.text;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the test call did not end');
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
/** The transcript's lines as the reader sees them (tags dropped, entities decoded). */
const lines = (fragment: string) => [...fragment.matchAll(/<li[^>]*>(.*?)<\/li>/gs)]
  .map((m) => m[1]!.replace(/<[^>]+>/g, '').replace(/&(lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e]!));

t.test('a test call runs in the background; its transcript reads as sentences', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' }, clock: scaledClock(10) });
  const app = await startWebhookApp(t);
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  app.on('/voice', async () => { await held; return xml(`<Gather numDigits="1" action="${app.url}/menu"><Say>Press 1 for sales.</Say></Gather>`); });
  app.on('/menu', xml('<Say>Connecting you to sales.</Say><Hangup/>'));
  const { c } = await signedIn(h, `${app.url}/voice`);

  const started = await c.submit('/dashboard/test-call', '/dashboard/test-call', { to: NUMBER, from: '+15557770001', digits: '1', max_seconds: '60' });
  t.equal(started.status, 303, 'the post answers while the webhook is still being asked');
  t.equal(started.location, '/dashboard/test-call');
  await app.waitFor('/voice');
  const page = await c.get('/dashboard/test-call');
  t.match(page.text, /data-refresh="\/dashboard\/test-call\/live"/, 'the page polls the transcript');
  t.match(page.text, /The call is in progress/);
  t.notMatch(page.text, /data-final/);
  const again = await c.submit('/dashboard/test-call', '/dashboard/test-call', { to: NUMBER, from: '+15557770001', max_seconds: '60' });
  t.equal(again.status, 422, 'one test call at a time');
  t.match(again.text, /already running/);

  release();
  const done = lines(await finishedTranscript(c));
  t.ok(done.some((l) => /Asked the webhook for instructions \(POST http:\/\/127\.0\.0\.1:\d+\/voice\)/.test(l)), 'the fetch');
  t.ok(done.some((l) => /Webhook answered with HTTP 200 in \d+ ms/.test(l)), 'the answer and its latency');
  t.ok(done.some((l) => l.includes('Said: “Press 1 for sales.”')), 'the prompt');
  t.equal(done.filter((l) => l.includes('Caller pressed 1')).length, 1, 'the key, once (the caller and the platform say the same)');
  t.ok(done.some((l) => l.includes('Said: “Connecting you to sales.”')), 'the next document');
  t.ok(done.some((l) => /Call ended at the <Hangup> instruction, by the platform/.test(l)), 'the cause in words');
  for (const l of done) t.notMatch(l, /[{}]|webhook-reply|heard-say|sbx-/, `no slugs or JSON: ${l}`);
});

t.test('a test call can say words to a speech prompt: the transcript has what the caller said and what was heard', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' }, clock: scaledClock(10) });
  const app = await startWebhookApp(t);
  app.on('/voice', xml(`<Gather input="speech" action="${app.url}/heard"><Say>Sales or support?</Say></Gather>`));
  app.on('/heard', (req) => xml(`<Say>You said ${String(req.json.speech_result)}.</Say><Hangup/>`));
  const { c } = await signedIn(h, `${app.url}/voice`);
  const bad = await c.submit('/dashboard/test-call', '/dashboard/test-call', { to: NUMBER, from: '+15557770001', say: 'a\u202Eb', max_seconds: '60' });
  t.equal(bad.status, 422);
  t.match(bad.text, /id="e-say">/, 'the words are checked as text');
  t.equal((await c.submit('/dashboard/test-call', '/dashboard/test-call', { to: NUMBER, from: '+15557770001', say: 'support please', max_seconds: '60' })).status, 303);
  const done = lines(await finishedTranscript(c));
  t.ok(done.some((l) => l.includes('Caller said: “support please”')), done.join('\n'));
  t.ok(done.some((l) => /Caller said “support please” \(sandbox, confidence 1, recognized in \d+ ms\)/.test(l)), 'the platform heard it');
  t.ok(done.some((l) => l.includes('Said: “You said support please.”')), 'the action answered');
  t.match((await c.get('/dashboard/test-call')).text, /value="support please"/, 'the words are kept for the next run');
});

t.test('an application error is the final cause, not "normal"; the call page draws the waterfall', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' }, clock: scaledClock(10) });
  const app = await startWebhookApp(t);
  app.on('/voice', { status: 500, body: 'boom' });
  const { a, c } = await signedIn(h, `${app.url}/voice`);
  await c.submit('/dashboard/test-call', '/dashboard/test-call', { to: NUMBER, from: '+15557770001', max_seconds: '60' });
  const done = lines(await finishedTranscript(c));
  t.ok(done.some((l) => l.includes('Call ended after an application error')), done.join('\n'));
  t.notOk(done.some((l) => /normal/.test(l)), 'no "normal" anywhere');

  const call = (await h.store.calls.list(a.id, { limit: 1 })).calls[0]!;
  const detail = await c.get(`/dashboard/calls/${call.sid}`);
  t.equal(detail.status, 200);
  t.match(detail.text, /ended after an application error/, 'the facts say why it ended');
  const svg = /<svg class="waterfall"[\s\S]*?<\/svg>/.exec(detail.text)?.[0] ?? '';
  t.match(svg, /role="img" aria-label="Waterfall of the call: \d+ steps over [\d.]+ s"/);
  const kinds = [...svg.matchAll(/data-kind="([a-z]+)"/g)].map((m) => m[1]);
  t.ok(kinds.includes('webhook') && kinds.includes('error') && kinds.includes('call'), `webhook fetch, error and hang-up drawn: ${kinds.join(',')}`);
  t.match(svg, /<text[^>]*>Webhook 500 in \d+ ms<\/text>/, 'the fetch is labelled with its status and time');
  t.match(svg, /Hung up after an application error/);
  t.notMatch(svg, /NaN|Infinity/, 'every coordinate is a number');
  t.match(detail.text, /<ol class="transcript" id="timeline">/, 'the timeline is a list of sentences');
});

t.test('home: calls per day and answer rate for 14 days, and the last calls', async (t) => {
  const h = await startHarness(t);
  const { a, c } = await signedIn(h, null);
  const day = 86_400_000;
  const now = h.clock.now();
  // Two calls today (one answered), one three days ago (answered), one 20 days ago (outside the charts).
  const made = [[0, true], [0, false], [3, true], [20, true]] as const;
  for (const [ago, answered] of made) {
    const sid = newSid('CA');
    await h.store.calls.create({ sid, accountId: a.id, direction: 'inbound', from: '+15557770001', to: NUMBER, status: 'ringing', createdAtMs: now - ago * day });
    if (answered) await h.store.calls.markAnswered(sid);
  }
  const anon = await fetch(`${h.url}/dashboard`, { redirect: 'manual' });
  t.equal(anon.status, 303, 'signed out: to the sign-in page');
  t.equal(anon.headers.get('location'), '/dashboard/login?next=%2Fdashboard');
  const home = await c.get('/dashboard');
  t.equal(home.status, 200);
  const bars = (id: string) => [...(new RegExp(`<svg class="chart" id="${id}"[\\s\\S]*?</svg>`).exec(home.text)?.[0] ?? '')
    .matchAll(/data-value="(\d+)"/g)].map((m) => Number(m[1]));
  const perDay = bars('chart-calls');
  t.equal(perDay.length, 14, 'one bar per day');
  t.same([perDay[13], perDay[10]], [2, 1], 'today and three days ago');
  t.equal(perDay.reduce((x, y) => x + y, 0), 3, 'the older call is outside the period');
  const rate = bars('chart-answer');
  t.same([rate[13], rate[10]], [50, 100], 'answer rate per day in percent');
  t.match(home.text, /3 calls in the last 14 days \(UTC\), 67 % answered/);
  t.equal([...home.text.matchAll(/<a href="\/dashboard\/calls\/CA[0-9a-f]{32}">/g)].length, 4, 'the last calls, the old one too');
  t.notMatch(home.text, /NaN|Infinity|style=/, 'numbers only, and no inline styles (the CSP would drop them)');
});

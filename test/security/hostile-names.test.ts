// The hostile-name corpus against every field that takes a name or a note, over real HTTP: /v1 (bodies, forms,
// query strings, path segments), /api (trunk labels, markup names in an inline document) and the dashboard's forms.
// Each string is refused, naming its field in the documented shape (400 + param on /v1, 422 + errors on /api, 422 with
// the message beside the field on the dashboard), and afterwards no stored name breaks the rule (src/names).
// Notes (free text) take line breaks, tabs and blank text, and refuse the rest. A well-formed name in every script
// passes every field, so the refusals are the rule's and not the fields'.
import t from 'tap';
import { startPreviewHarness } from '../http/preview/helpers.js';
import { accountWithUser, DashboardClient, PASSWORD } from '../dashboard/client.js';
import { NumberService } from '../../src/numbers/service.js';
import { nameProblem, textProblem } from '../../src/names/index.js';
import { percentEncoded as encoded, rawRequest, type RawAnswer as Answer } from '../helpers/raw-request.js';

type Kind = 'control' | 'break' | 'separator' | 'bidi' | 'invisible' | 'blank' | 'surrogate' | 'overlong' | 'path';
const CORPUS: Array<[string, string, Kind]> = [
  ['NUL', 'a\u0000b', 'control'], ['ESC', 'a\u001bb', 'control'], ['DEL', 'a\u007fb', 'control'], ['BEL', 'a\u0007b', 'control'],
  ['backspace', 'abc\u0008\u0008x', 'control'], ['NEL', 'a\u0085b', 'control'], ['C1 CSI', 'a\u009bb', 'control'],
  ['ANSI colour', '\u001b[31mred\u001b[0m', 'control'], ['vertical tab', 'a\u000bb', 'control'], ['form feed', 'a\u000cb', 'control'],
  ['tab', 'a\tb', 'break'], ['LF', 'a\nb', 'break'], ['CR', 'a\rb', 'break'], ['CRLF injection', 'a\r\nSet-Cookie: x=1', 'break'],
  ['line separator', 'a\u2028b', 'separator'], ['paragraph separator', 'a\u2029b', 'separator'],
  ['RLO', 'a\u202eb', 'bidi'], ['LRO', 'a\u202db', 'bidi'], ['LRE', 'a\u202ab', 'bidi'], ['RLE', 'a\u202bb', 'bidi'], ['PDF', 'a\u202cb', 'bidi'],
  ['LRI', 'a\u2066b', 'bidi'], ['RLI', 'a\u2067b', 'bidi'], ['FSI', 'a\u2068b', 'bidi'], ['PDI', 'a\u2069b', 'bidi'], ['LRM', 'a\u200eb', 'bidi'],
  ['RLM', 'a\u200fb', 'bidi'], ['ALM', 'a\u061cb', 'bidi'], ['Trojan file name', 'invoice\u202egnp.exe', 'bidi'],
  ['zero-width space only', '\u200b', 'invisible'], ['zero-width spaces', '\u200b\u200b\u200b', 'invisible'], ['word joiner only', '\u2060', 'invisible'],
  ['BOM only', '\ufeff', 'invisible'], ['BOM inside', 'a\ufeffb', 'invisible'], ['soft hyphen only', '\u00ad', 'invisible'],
  ['Hangul filler', '\u3164', 'invisible'], ['braille blank', '\u2800', 'invisible'], ['tag characters', 'a\u{E0041}\u{E0042}', 'invisible'],
  ['private use', 'a\ue000b', 'invisible'], ['private use plane 15', 'a\u{F0000}', 'invisible'], ['non-character', 'a\uffffb', 'invisible'],
  ['replacement character', 'a\ufffdb', 'invisible'],
  ['ZWJ only', '\u200d', 'blank'], ['ZWNJ only', '\u200c', 'blank'], ['variation selector only', '\ufe0f', 'blank'],
  ['space only', ' ', 'blank'], ['spaces', '     ', 'blank'], ['no-break and ideographic spaces', '\u00a0\u3000', 'blank'], ['empty', '', 'blank'],
  ['lone high surrogate', 'a\ud800b', 'surrogate'], ['lone low surrogate', 'a\udc00b', 'surrogate'], ['reversed pair', '\udfff\ud800', 'surrogate'],
  ['overlong ASCII', 'x'.repeat(1_025), 'overlong'], ['overlong astral', '😀'.repeat(1_025), 'overlong'],
  ['dot', '.', 'path'], ['dot dot', '..', 'path'], ['three dots', '...', 'path'], ['parent path', '../etc/passwd', 'path'],
  ['slash', 'a/b', 'path'], ['slash only', '/', 'path'], ['backslash', 'a\\b', 'path'], ['Windows parent path', '..\\..\\windows', 'path'],
];
/** A good name in several scripts, with an emoji sequence and a variation selector: taken by every field. */
const GOOD = 'Sales – Ünïcödé 日本 مبيعات 👩‍💻 ❤️';
/** What free text takes of the corpus. */
const TEXT_TAKES = new Set<Kind>(['break', 'blank', 'path']);

type Outcome = 'refused' | 'taken';
interface Surface {
  name: string;
  /** A name (the rule in full) or free text (notes). */
  rule: 'name' | 'text';
  /** A path segment cannot be empty: `/v1/lead-campaigns/` is another route. */
  path?: boolean;
  /** A dashboard field left blank means "none": text that trims to nothing is taken as no value. */
  blankIsNone?: boolean;
  attempt(value: string): Promise<Outcome | string>;
}

/** /v1's answer: refused when it is a 400 naming `param` (or a path the router refused); else what it was. */
function v1Outcome(res: Answer, param: string): Outcome | string {
  if (res.status === 400 && String(res.body?.error?.param ?? '').startsWith(param)) return 'refused';
  if (res.status === 414 && res.body?.error?.code === 'path_segment_too_long') return 'refused';
  if (res.status === 400 && res.body?.error?.code === 'malformed_path') return 'refused';
  // Past the name rule: found or not, or a name already in use (queue names are unique).
  return res.status < 300 || res.status === 404 || res.status === 409 ? 'taken' : `status ${res.status} ${res.text.slice(0, 160)}`;
}
function apiOutcome(res: Answer, field: string): Outcome | string {
  if (res.status === 422 && Object.keys(res.body?.errors ?? {}).some((k) => k.startsWith(field))) return 'refused';
  return res.status < 300 ? 'taken' : `status ${res.status} ${res.text.slice(0, 160)}`;
}
function pageOutcome(res: { status: number; text: string }, field: string): Outcome | string {
  if (res.status === 422 && res.text.includes(`id="e-${field}"`)) return 'refused';
  return res.status === 303 || res.status === 201 || res.status === 409 ? 'taken' : `status ${res.status}`;
}

async function setup(t: Parameters<typeof startPreviewHarness>[0]) {
  const h = await startPreviewHarness(t, { env: { RINGBASE_PREVIEW_RATE_LIMIT: '100000' } });
  const a = await accountWithUser(h, 'names@example.com');
  // The good names place real (sandbox) calls; the calls-per-second cap is not what this test is about.
  await h.store.accounts.update(a.id, { cpsCap: 1_000 });
  await h.store.orgSettings.allowHost(a.id, '127.0.0.1');
  await h.store.orgSettings.allowIp(a.id, '127.0.0.0/8');
  const injectionToken = await h.store.orgSettings.rotateInjectionToken(a.id);
  const numbers = new NumberService(h.store.numbers, { allowLocalTargets: true });
  const did = '+15550001000';
  await numbers.add(did, a.id, {});
  const v1Headers = { authorization: `Bearer ${a.key}`, 'x-forwarded-proto': 'https', accept: 'application/json' };
  const json = (method: string, path: string, body: unknown, headers: Record<string, string> = v1Headers) =>
    rawRequest(h.url, method, path, { ...headers, 'content-type': 'application/json' }, JSON.stringify(body));
  const form = (method: string, path: string, fields: Record<string, string>) =>
    rawRequest(h.url, method, path, { ...v1Headers, 'content-type': 'application/x-www-form-urlencoded' },
      Object.entries(fields).map(([k, v]) => `${k}=${encoded(v)}`).join('&'));
  const get = (path: string) => rawRequest(h.url, 'GET', path, v1Headers);

  const queue = (await json('POST', '/v1/queues', { friendly_name: 'support' })).body;
  const seat = (await json('POST', '/api/partner/trunks', { transport: 'wss' }, { authorization: `Bearer ${a.key}` })).body;
  const agent = (await json('POST', '/v1/agents', { friendly_name: 'Sam', trunk_id: seat.id })).body;
  const callSid = `CA${'3'.repeat(32)}`;
  await h.store.calls.create({ sid: callSid, accountId: a.id, direction: 'inbound', from: '+15557770001', to: did, status: 'completed' });

  // The dashboard: one signed-in session, one CSRF token for all its forms; an agent in wrap-up with a call.
  const c = new DashboardClient(h.url);
  await c.signIn('names@example.com', PASSWORD);
  const csrf = DashboardClient.csrfOf(await c.get('/dashboard/queues'));
  const post = (path: string, fields: Record<string, string>) => c.post(path, { _csrf: csrf, ...fields });
  const wrapping = await h.store.agents.create(a.id, `AG${'4'.repeat(32)}`, { friendlyName: 'Ana', trunkId: seat.id, queueIds: [], status: 'available', breakReason: null });
  const toWrapUp = () => h.store.sql.run("UPDATE acd_agents SET activity = 'wrap-up', current_call_sid = ?, wrap_up_ends_at = ? WHERE id = ?", [callSid, Date.now() + 600_000, wrapping.id]);
  await toWrapUp();

  const markupCall = async (markup: string) => apiOutcome(await json('POST', '/api/calls', { from: did, to: '+15557770002', markup }, { authorization: `Bearer ${a.key}`, accept: 'application/json' }), 'markup');
  const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

  const surfaces: Surface[] = [
    { name: 'POST /v1/queues friendly_name', rule: 'name', attempt: async (v) => v1Outcome(await json('POST', '/v1/queues', { friendly_name: v }), 'friendly_name') },
    { name: 'POST /v1/queues friendly_name (form)', rule: 'name', attempt: async (v) => v1Outcome(await form('POST', '/v1/queues', { friendly_name: v }), 'friendly_name') },
    { name: 'POST /v1/queues/{sid} friendly_name', rule: 'name', attempt: async (v) => v1Outcome(await json('POST', `/v1/queues/${queue.sid}`, { friendly_name: v }), 'friendly_name') },
    { name: 'POST /v1/agents friendly_name', rule: 'name', attempt: async (v) => v1Outcome(await json('POST', '/v1/agents', { friendly_name: v, trunk_id: seat.id }), 'friendly_name') },
    { name: 'POST /v1/agents/{sid} friendly_name', rule: 'name', attempt: async (v) => v1Outcome(await json('POST', `/v1/agents/${agent.sid}`, { friendly_name: v }), 'friendly_name') },
    { name: 'POST /v1/agents queues[]', rule: 'name', attempt: async (v) => v1Outcome(await json('POST', '/v1/agents', { friendly_name: 'Q', trunk_id: seat.id, queues: [v] }), 'queues') },
    { name: 'GET /v1/agents?queue=', rule: 'name', attempt: async (v) => v1Outcome(await get(`/v1/agents?queue=${encoded(v)}`), 'queue') },
    { name: 'POST /v1/agents/{sid} break_reason', rule: 'text', attempt: async (v) => v1Outcome(await json('POST', `/v1/agents/${agent.sid}`, { status: 'break', break_reason: v }), 'break_reason') },
    { name: 'POST /v1/dispositions disposition', rule: 'name', attempt: async (v) => v1Outcome(await json('POST', '/v1/dispositions', { call_sid: callSid, disposition: v }), 'disposition') },
    { name: 'POST /v1/dispositions notes', rule: 'text', attempt: async (v) => v1Outcome(await json('POST', '/v1/dispositions', { call_sid: callSid, disposition: 'sale', notes: v }), 'notes') },
    { name: 'POST /v1/callbacks queue', rule: 'name', attempt: async (v) => v1Outcome(await json('POST', '/v1/callbacks', { queue: v, to: '+15557770003', from: did, due_at: new Date(Date.now() + 3_600_000).toISOString() }), 'queue') },
    { name: 'POST /v1/callbacks attributes key', rule: 'name', attempt: async (v) => v1Outcome(await json('POST', '/v1/callbacks', { queue: 'support', to: '+15557770003', from: did, due_at: new Date(Date.now() + 3_600_000).toISOString(), attributes: { [v]: 'x' } }), 'attributes') },
    { name: 'POST /v1/lead-campaigns/{name}', rule: 'name', path: true, attempt: async (v) => v1Outcome(await json('POST', `/v1/lead-campaigns/${encoded(v)}`, {}), 'name') },
    { name: 'GET /v1/lead-campaigns/{name}', rule: 'name', path: true, attempt: async (v) => v1Outcome(await get(`/v1/lead-campaigns/${encoded(v)}`), 'name') },
    { name: 'POST /v1/lead-campaigns/{name} speed_to_lead_queue', rule: 'name', attempt: async (v) => v1Outcome(await json('POST', '/v1/lead-campaigns/spring', { speed_to_lead_queue: v, caller_id: did }), 'speed_to_lead_queue') },
    { name: 'POST /v1/lead-injections campaign', rule: 'name', attempt: async (v) => v1Outcome(await json('POST', '/v1/lead-injections', { phone: '+15550100003', campaign: v }, { 'x-injection-token': injectionToken, 'x-forwarded-proto': 'https' }), 'campaign') },
    { name: 'POST /v1/lead-injections attributes key', rule: 'name', attempt: async (v) => v1Outcome(await json('POST', '/v1/lead-injections', { phone: '+15550100003', campaign: 'spring', attributes: { [v]: 'x' } }, { 'x-injection-token': injectionToken, 'x-forwarded-proto': 'https' }), 'attributes') },
    { name: 'POST /v1/lead-injections attributes value', rule: 'text', attempt: async (v) => v1Outcome(await json('POST', '/v1/lead-injections', { phone: '+15550100003', campaign: 'spring', attributes: { note: v } }, { 'x-injection-token': injectionToken, 'x-forwarded-proto': 'https' }), 'attributes') },
    { name: 'POST /v1/conferences/{name}/participants', rule: 'name', path: true, attempt: async (v) => v1Outcome(await json('POST', `/v1/conferences/${encoded(v)}/participants`, { from: did, to: '+15557770004' }), 'sid') },
    { name: 'GET /v1/conferences/{name}', rule: 'name', path: true, attempt: async (v) => v1Outcome(await get(`/v1/conferences/${encoded(v)}`), 'sid') },
    { name: 'GET /v1/conferences?friendly_name=', rule: 'name', attempt: async (v) => v1Outcome(await get(`/v1/conferences?friendly_name=${encoded(v)}`), 'friendly_name') },
    { name: 'POST /api/partner/trunks label', rule: 'name', attempt: async (v) => apiOutcome(await json('POST', '/api/partner/trunks', { label: v }, { authorization: `Bearer ${a.key}`, accept: 'application/json' }), 'label') },
    { name: 'PATCH /api/partner/trunks/{id} client_ref', rule: 'name', attempt: async (v) => apiOutcome(await json('PATCH', `/api/partner/trunks/${seat.id}`, { client_ref: v }, { authorization: `Bearer ${a.key}`, accept: 'application/json' }), 'client_ref') },
    { name: 'POST /api/calls markup <Enqueue>', rule: 'name', attempt: (v) => markupCall(`<Response><Enqueue>${xml(v)}</Enqueue></Response>`) },
    { name: 'POST /api/calls markup <Conference>', rule: 'name', attempt: (v) => markupCall(`<Response><Dial><Conference>${xml(v)}</Conference></Dial></Response>`) },
    { name: 'dashboard new queue', rule: 'name', attempt: async (v) => pageOutcome(await post('/dashboard/queues', { friendly_name: v }), 'friendly_name') },
    { name: 'dashboard new agent', rule: 'name', attempt: async (v) => pageOutcome(await post('/dashboard/agents', { friendly_name: v, trunk_id: String(seat.id), queue: '' }), 'friendly_name') },
    { name: 'dashboard disposition', rule: 'name', attempt: async (v) => { await toWrapUp(); return pageOutcome(await post(`/dashboard/agents/${wrapping.sid}/disposition`, { call_sid: callSid, disposition: v }), 'disposition'); } },
    { name: 'dashboard disposition notes', rule: 'text', blankIsNone: true, attempt: async (v) => { await toWrapUp(); return pageOutcome(await post(`/dashboard/agents/${wrapping.sid}/disposition`, { call_sid: callSid, disposition: 'sale', notes: v }), 'notes'); } },
    { name: 'dashboard API key name', rule: 'name', attempt: async (v) => pageOutcome(await post('/dashboard/keys', { name: v }), 'name') },
    { name: 'dashboard trunk label', rule: 'name', blankIsNone: true, attempt: async (v) => pageOutcome(await post(`/dashboard/trunks/${seat.id}/edit`, { label: v, voice_webhook_method: 'POST', cli_lookup_method: 'POST', status_callback_events: 'completed' }), 'label') },
    { name: 'dashboard number reference', rule: 'name', blankIsNone: true, attempt: async (v) => pageOutcome(await post(`/dashboard/numbers/${encodeURIComponent(did)}`, { client_ref: v, response_format: 'xml', active: 'on' }), 'client_ref') },
    { name: 'dashboard number IVR queue', rule: 'name', attempt: async (v) => pageOutcome(await post(`/dashboard/numbers/${encodeURIComponent(did)}`, { response_format: 'xml', active: 'on', 'ivr.enabled': 'on', 'ivr.prompt': 'Press 1.', 'ivr.keys.1.action': 'queue', 'ivr.keys.1.target': v }), 'ivr-keys-1-target') },
  ];
  return { h, a, surfaces };
}

function expected(surface: Surface, value: string, kind: Kind): Outcome {
  if (surface.blankIsNone && value.trim() === '') return 'taken';
  if (surface.rule === 'text') return TEXT_TAKES.has(kind) ? 'taken' : 'refused';
  return 'refused';
}

t.test('the corpus', async (t) => {
  t.ok(CORPUS.length >= 40, `${CORPUS.length} hostile strings`);
  for (const [label, value, kind] of CORPUS) {
    t.not(nameProblem(value, 255), null, `${label}: not a name`);
    if (!TEXT_TAKES.has(kind)) t.not(textProblem(value, 1_000), null, `${label}: not text either`);
  }
  t.equal(nameProblem(GOOD, 64), null, 'the good name is one');
});

t.test('every name-taking field refuses every hostile string; nothing stored breaks the rule', async (t) => {
  const { h, surfaces } = await setup(t);
  t.ok(surfaces.length >= 30, `${surfaces.length} fields`);
  for (const surface of surfaces) {
    t.equal(await surface.attempt(GOOD), 'taken', `${surface.name}: takes ${GOOD}`);
    const wrong: string[] = [];
    for (const [label, value, kind] of CORPUS) {
      if (surface.path && value === '') continue;
      const want = expected(surface, value, kind);
      const got = await surface.attempt(value);
      if (got !== want) wrong.push(`${label}: ${got} (expected ${want})`);
    }
    t.same(wrong, [], `${surface.name}: the corpus`);
  }

  // Whatever was taken, every stored name keeps the rule and every stored note the text rule.
  const column = async (sql: string) => (await h.store.sql.all<Record<string, string | null>>(sql)).map((row) => Object.values(row)[0] ?? null);
  const names = [
    ...await column('SELECT friendly_name FROM acd_queues'), ...await column('SELECT friendly_name FROM acd_agents'),
    ...await column('SELECT disposition FROM acd_dispositions'), ...await column('SELECT name FROM lead_campaigns'), ...await column('SELECT campaign FROM leads'),
    ...await column('SELECT friendly_name FROM conferences'), ...await column('SELECT label FROM trunks'), ...await column('SELECT client_ref FROM trunks'),
    ...await column('SELECT name FROM api_keys'),
  ].filter((n): n is string => n !== null);
  t.ok(names.length > 10, `${names.length} stored names`);
  t.same(names.filter((n) => nameProblem(n, 255) !== null || n !== n.trim()), [], 'every stored name keeps the rule, trimmed');
  const notes = [...await column('SELECT notes FROM acd_dispositions'), ...await column('SELECT break_reason FROM acd_agents')].filter((n): n is string => n !== null);
  t.same(notes.filter((n) => textProblem(n, 1_000) !== null), [], 'every stored note keeps the text rule');
});

// Values other than names, checked when they are written: every date the API takes is a real RFC 3339 time
// (2026-11-31 and T24:00 are refused, where Date.parse moves them to another day), and every stored URL goes through
// the target policy when it is stored (a participant's hold_url before any hold; a queue's wait_url even when empty).
import t from 'tap';
import { readFullDate, readRfc3339 } from '../../src/rfc3339.js';
import { startPreviewHarness } from './preview/helpers.js';
import { conferenceScene } from '../conferences/support.js';
import { NumberService } from '../../src/numbers/service.js';

const IMPOSSIBLE = [
  ['30 November + 1', '2026-11-31T09:00:00Z'], ['29 February of a common year', '2027-02-29T09:00:00Z'], ['month 13', '2026-13-01T09:00:00Z'],
  ['day 0', '2026-12-00T09:00:00Z'], ['hour 24', '2026-12-01T24:00:00Z'], ['minute 60', '2026-12-01T09:60:00Z'], ['leap second', '2026-12-01T23:59:60Z'],
  ['offset +24:00', '2026-12-01T09:00:00+24:00'], ['no seconds', '2026-12-01T09:30Z'], ['no zone', '2026-12-01T09:30:00'],
  ['space for T', '2026-12-01 09:30:00Z'], ['date only', '2026-12-01'], ['week date', '2026-W49-2T09:00:00Z'], ['trailing text', '2026-12-01T09:30:00Zjunk'],
] as const;

t.test('RFC 3339, strictly', async (t) => {
  for (const [what, text] of IMPOSSIBLE) t.equal(readRfc3339(text).ok, false, `${what}: ${text} refused`);
  t.same(readRfc3339('2026-12-01T10:30:00.25+01:00'), { ok: true, ms: Date.UTC(2026, 11, 1, 9, 30, 0, 250) }, 'offset and fraction');
  t.same(readRfc3339('2028-02-29t09:30:00z'), { ok: true, ms: Date.UTC(2028, 1, 29, 9, 30) }, 'a leap day; lower-case t and z (RFC 3339 5.6)');
  t.same(readRfc3339('0050-06-01T00:00:00Z'), { ok: true, ms: new Date('0050-06-01T00:00:00Z').getTime() }, 'years below 100 are those years');
  t.match(readRfc3339('2026-11-31T09:00:00Z'), { ok: false, problem: 'names day 31 of a month that has 30 days' });
  t.equal(readFullDate('2026-02-30'), null);
  t.equal(readFullDate('2026-02-28'), Date.UTC(2026, 1, 28));
});

t.test('due_at and start_time_after refuse impossible dates, naming the field', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  await h.v1('POST', '/v1/queues', { body: { friendly_name: 'support' } });
  await new NumberService(h.store.numbers, { allowLocalTargets: true }).add('+15550001000', a.id, {});
  for (const [what, text] of IMPOSSIBLE) {
    const res = await h.v1('POST', '/v1/callbacks', { body: { queue: 'support', to: '+15557770001', from: '+15550001000', due_at: text } });
    t.match(res, { status: 400, body: { error: { code: 'parameter_invalid', param: 'due_at' } } }, `due_at ${what}`);
    const list = await h.request('GET', `/api/calls?start_time_after=${encodeURIComponent(text)}`);
    t.match(list, { status: 422, body: { errors: { start_time_after: [String] } } }, `start_time_after ${what}`);
  }
  const res = await h.v1('POST', '/v1/callbacks', { body: { queue: 'support', to: '+15557770001', from: '+15550001000', due_at: '2026-11-31T09:00:00Z' } });
  t.match(res.body.error.message, 'The due_at parameter names day 31 of a month that has 30 days.', 'the message says what is wrong');
  t.equal((await h.store.sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM acd_callbacks'))?.n, 0, 'no callback stored');
  const soon = new Date(Date.now() + 3_600_000).toISOString();
  t.equal((await h.v1('POST', '/v1/callbacks', { body: { queue: 'support', to: '+15557770001', from: '+15550001000', due_at: soon } })).status, 201, 'a real time is taken');
});

t.test("a participant's hold_url is checked when written, not first when a hold starts", async (t) => {
  const s = await conferenceScene(t);
  const p = await s.join('Room A', '+15557770001');
  for (const url of ['http://169.254.169.254/latest/meta-data', 'ftp://media.example.com/hold.wav', 'http://10.0.0.8/hold.wav', 'not a url']) {
    const res = await s.call('POST', `/v1/conferences/${p.confSid}/participants/${p.callSid}`, { form: { hold_url: url } });
    t.match(res, { status: 400, body: { error: { code: 'parameter_invalid', param: 'hold_url' } } }, `${url} refused while not on hold`);
  }
  const list = await s.call('GET', `/v1/conferences/${p.confSid}/participants`);
  t.equal(list.body.participants[0].hold_url, null, 'nothing stored');
  const taken = await s.call('POST', `/v1/conferences/${p.confSid}/participants/${p.callSid}`, { form: { hold_url: 'https://media.example.com/hold.wav' } });
  t.match(taken, { status: 200, body: { hold: false, hold_url: 'https://media.example.com/hold.wav' } }, 'an allowed URL is stored for later');
});

t.test("a queue's wait_url is checked when written, the empty string too", async (t) => {
  const h = await startPreviewHarness(t);
  await h.org();
  for (const url of ['', ' ', 'http://169.254.169.254/x.wav']) {
    const res = await h.v1('POST', '/v1/queues', { body: { friendly_name: 'support', wait_url: url } });
    t.match(res, { status: 400, body: { error: { param: 'wait_url' } } }, `${JSON.stringify(url)} refused`);
  }
  t.equal((await h.store.sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM acd_queues'))?.n, 0);
});

// Conference status callbacks end to end on the sandbox: each change queues its event in order, numbered, signed.
import t from 'tap';
import { conferenceScene, FROM } from './support.js';
import { startWebhookApp } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import { verify } from '../../src/net/index.js';

t.test('join, mute, hold, leave, end: one callback each, in order, numbered and signed', async (t) => {
  const s = await conferenceScene(t);
  const hooks = await startWebhookApp(t);
  hooks.on('/conf', { status: 204, body: '' });
  const a = await s.join('Cb', '+15557770001', { status_callback: `${hooks.url}/conf` });
  const b = await s.join('Cb', '+15557770002');
  await s.call('POST', `/v1/conferences/${a.confSid}/participants/${b.callSid}`, { form: { muted: 'true' } });
  await s.call('POST', `/v1/conferences/${a.confSid}/participants/${b.callSid}`, { form: { hold: 'true' } });
  await s.call('DELETE', `/v1/conferences/${a.confSid}/participants/${b.callSid}`);
  await until('b left', 2_000, async () => (await s.statusOf(a.confSid, b.callSid)) === 'completed');
  await s.call('POST', `/v1/conferences/${a.confSid}`, { form: { status: 'completed' } });
  await hooks.waitFor('/conf', 8);
  const got = hooks.requests.filter((r) => r.path === '/conf').map((r) => Object.fromEntries(r.form));
  t.same(got.map((f) => [f.StatusCallbackEvent, f.CallSid ?? null]), [
    ['participant-join', a.callSid], ['conference-start', a.callSid], ['participant-join', b.callSid],
    ['participant-mute', b.callSid], ['participant-hold', b.callSid], ['participant-leave', b.callSid],
    ['conference-end', null], ['participant-leave', a.callSid],
  ]);
  t.same(got.map((f) => f.SequenceNumber), ['1', '2', '3', '4', '5', '6', '7', '8'], 'numbered in order');
  t.ok(got.every((f) => f.ConferenceSid === a.confSid && f.FriendlyName === 'Cb' && /\+0000$/.test(f.Timestamp!)), 'conference, name, RFC 2822 time');
  t.match(got[3], { Muted: 'true', Hold: 'false', Coaching: 'false' });
  t.match(got[4], { Muted: 'true', Hold: 'true' });
  t.match(got[6], { Reason: 'conference-ended-via-api' });
  const secret = await s.h.app.signingSecrets.get(s.account.id);
  t.ok(hooks.requests.filter((r) => r.path === '/conf').every((r) => verify(secret, r.body, r.headers['x-service-signature'], Math.floor(Date.now() / 1000)).ok), 'every one signed');
  t.equal((await s.call('POST', `/v1/conferences/Cb2/participants`, { form: { from: FROM, to: '+15557770003', status_callback: 'https://10.0.0.1/cb' } })).body.error.param, 'status_callback');
});

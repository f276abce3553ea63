// <Gather input="speech"> on the sandbox engine, whose simulated caller says words (CallerScript.speechInput) that
// the sandbox's recognizer hears exactly: the action gets speech_result and confidence; speech over the prompts stops
// them (barge-in); silence falls through to the next verb, or asks the action with an empty result when told to;
// keys still answer a "dtmf speech" Gather. The call's timeline says what was heard.
import t from 'tap';
import { sandboxDriver } from '../engine-suite/sandbox-driver.js';
import { scene, CALLER, DID } from '../engine-suite/flows.js';
import { xml } from '../helpers/webhook-app.js';
import type { EngineDriver } from '../engine-suite/driver.js';

const timeline = async (d: EngineDriver, callSid: string, kind: string) =>
  (await d.h.store.sql.all<{ detail: string }>('SELECT detail FROM call_timeline WHERE call_sid = ? AND kind = ? ORDER BY id', [callSid, kind])).map((r) => JSON.parse(r.detail) as Record<string, unknown>);

t.test('the caller says a word after the prompt: the action gets speech_result and confidence', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  s.app.on('/voice', xml('<Gather input="speech" hints="sales, support, billing" action="/heard"><Say>Sales, support or billing?</Say></Gather><Say>Nothing heard.</Say>'));
  s.app.on('/heard', xml('<Say>Thanks.</Say><Hangup/>'));
  const call = await d.inbound(CALLER, DID, { speechInput: ['support'] });
  const heard = await s.app.waitFor('/heard');
  t.match(heard.json, { speech_result: 'support', confidence: 1 });
  t.notOk('digits' in heard.json, 'no keys');
  await call.ended;
  t.same(call.heard(), ['Sales, support or billing?', 'Thanks.'], 'the prompt played whole, then the action');
  const [speech] = await timeline(d, heard.json.call_sid as string, 'speech');
  t.match(speech, { recognizer: 'sandbox', text: 'support', confidence: 1 });
  t.ok((speech!.heard_ms as number) >= 350, `heard ${speech!.heard_ms} ms of speech`);
});

t.test('speech over the prompts stops them (barge-in)', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  s.app.on('/voice', xml('<Gather input="speech" action="/heard"><Say>Welcome to the support line of Example Corporation, please listen closely.</Say><Say>Say sales, support or billing.</Say></Gather>'));
  s.app.on('/heard', xml('<Hangup/>'));
  const call = await d.inbound(CALLER, DID, { speechInput: [{ text: 'billing', bargeIn: true }] });
  t.match((await s.app.waitFor('/heard')).json, { speech_result: 'billing' });
  await call.ended;
  t.same(call.heard(), ['Welcome to the support line of Example Corporation, please listen closely.'], 'the second prompt never played');
});

t.test('silence: the next verb runs, no action; with actionOnEmptyResult the action hears an empty result', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  s.app.on('/voice', xml('<Gather input="speech" timeout="2" action="/heard"><Say>Say something.</Say></Gather><Gather input="speech" timeout="2" actionOnEmptyResult="true" action="/empty"><Say>Once more.</Say></Gather>'));
  s.app.on('/empty', xml('<Say>Goodbye.</Say><Hangup/>'));
  const call = await d.inbound(CALLER, DID, { speechInput: ['', ''] });
  const empty = await s.app.waitFor('/empty');
  t.match(empty.json, { speech_result: '', confidence: null });
  await call.ended;
  t.equal(s.app.requests.filter((r) => r.path === '/heard').length, 0, 'the first Gather fell through');
  t.same(call.heard(), ['Say something.', 'Once more.', 'Goodbye.']);
  t.equal((await timeline(d, empty.json.call_sid as string, 'speech-no-input')).length, 2);
});

t.test('input="dtmf speech": keys answer it as without speech', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  s.app.on('/voice', xml('<Gather input="dtmf speech" numDigits="1" action="/pressed"><Say>Press or say one.</Say></Gather>'));
  s.app.on('/pressed', xml('<Hangup/>'));
  const call = await d.inbound(CALLER, DID, { gatherInput: ['1'] });
  t.match((await s.app.waitFor('/pressed')).json, { digit: '1', digits: '1' });
  await call.ended;
});

// Transcription on the sandbox engine with the account's OpenAI-compatible endpoint (a local stand-in): <Record
// transcribe="true" transcribeCallback> stores the words on the recording, sends its voicemail-left event with them
// (the event waits for them) and calls back; the caller goes on meanwhile. A failing endpoint gives a failed
// transcription and the event without words. POST /api/recordings/{sid}/transcription transcribes a completed
// recording again (202), refusing one under way or not completed (409). A transcription a dead control plane left
// under way is finished by the survivor's reconciliation: the held-back event goes out without words.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { sandboxDriver } from '../engine-suite/sandbox-driver.js';
import { scene, CALLER, DID } from '../engine-suite/flows.js';
import { eventData, subscribe } from '../engine-suite/acd-helpers.js';
import { xml } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import type { EngineDriver } from '../engine-suite/driver.js';

/** A stand-in transcription endpoint answering `answer` (status, body), counting its requests. */
async function transcriptionServer(t: Test, answer: { status: number; body: string }) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url!);
    req.resume().on('end', () => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

async function setUp(t: Test, answer: { status: number; body: string }) {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  const asr = await transcriptionServer(t, answer);
  const set = await d.h.request('POST', '/v1/speech-settings', { headers: { 'x-forwarded-proto': 'https' }, body: { transcription_url: asr.url, transcription_model: 'whisper-1' } });
  t.equal(set.status, 200, JSON.stringify(set.body));
  await subscribe(d, s, ['voicemail-left']);
  s.app.on('/voice', xml('<Say>Leave a message.</Say><Record transcribe="true" transcribeCallback="/transcribed" action="/after" timeout="2"/>'));
  s.app.on('/after', xml('<Say>Thanks.</Say><Hangup/>'));
  s.app.on('/transcribed', { body: '' });
  return { d, s, asr };
}

const recordingOf = async (d: EngineDriver, sid: string) => (await d.h.request('GET', `/api/recordings/${sid}`)).body;

t.test('<Record transcribe>: the words on the recording, in the voicemail-left event and the transcribe callback', async (t) => {
  const { d, s, asr } = await setUp(t, { status: 200, body: JSON.stringify({ text: 'Please call me back about my order.' }) });
  const call = await d.inbound(CALLER, DID, { speakMs: 1_500 });
  const after = await s.app.waitFor('/after');
  const sid = after.json.recording_sid as string;
  await call.ended;
  const [event] = await eventData(s, 'voicemail-left');
  t.match(event, { recording_sid: sid, source: 'record-verb', transcription_text: 'Please call me back about my order.' });
  const callback = await s.app.waitFor('/transcribed');
  t.match(Object.fromEntries(callback.form), { RecordingSid: sid, TranscriptionStatus: 'completed', TranscriptionText: 'Please call me back about my order.', CallSid: after.json.call_sid });
  t.match(await recordingOf(d, sid), { status: 'completed', transcription: { status: 'completed', text: 'Please call me back about my order.', error: null } });
  t.same(asr.seen, ['/v1/audio/transcriptions']);

  const again = await d.h.request('POST', `/api/recordings/${sid}/transcription`);
  t.equal(again.status, 202, JSON.stringify(again.body));
  t.match(again.body, { sid, transcription: { status: 'in-progress' } });
  await until('transcribed again', 10_000, async () => (await recordingOf(d, sid)).transcription.status === 'completed');
  t.equal(asr.seen.length, 2, 'asked again');
  t.equal((await eventData(s, 'voicemail-left')).length, 1, 'no second voicemail-left event');
  t.equal((await d.h.request('POST', '/api/recordings/RE00000000000000000000000000000000/transcription')).status, 404);
});

t.test('an endpoint that fails: the transcription failed with why, the event without words', async (t) => {
  const { d, s } = await setUp(t, { status: 503, body: 'overloaded' });
  const call = await d.inbound(CALLER, DID, { speakMs: 1_500 });
  const sid = (await s.app.waitFor('/after')).json.recording_sid as string;
  await call.ended;
  const [event] = await eventData(s, 'voicemail-left');
  t.match(event, { recording_sid: sid, transcription_text: null });
  t.match(await recordingOf(d, sid), { transcription: { status: 'failed', text: null, error: /answered 503/ } });
  t.match(Object.fromEntries((await s.app.waitFor('/transcribed')).form), { TranscriptionStatus: 'failed', TranscriptionText: '' });
});

t.test('refused: a recording still in progress, and one being transcribed', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  await d.h.store.calls.create({ sid: 'CA00000000000000000000000000000001', accountId: s.accountId, direction: 'inbound', from: CALLER, to: DID, status: 'in-progress', parentSid: null });
  await d.h.store.recordings.create({ sid: 'RE00000000000000000000000000000001', accountId: s.accountId, callSid: 'CA00000000000000000000000000000001', source: 'call', tracks: 'both', channels: 2, file: '/nonexistent.wav', callbackUrl: null });
  const open = await d.h.request('POST', '/api/recordings/RE00000000000000000000000000000001/transcription');
  t.equal(open.status, 409);
  t.match(open.body, { code: 'transcription_not_started', error: /in-progress; only a completed recording/ });
  await d.h.store.recordings.complete('RE00000000000000000000000000000001', 1000);
  t.ok(await d.h.store.recordings.startTranscription('RE00000000000000000000000000000001', { holdsEvent: false }));
  t.match((await d.h.request('POST', '/api/recordings/RE00000000000000000000000000000001/transcription')).body, { code: 'transcription_not_started', error: /under way/ });
});

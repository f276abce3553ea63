// A recorded conference: the room's mix becomes a recording resource (source conference, conference_sid set),
// listed under the call whose join started it, downloadable like any call recording.
import t from 'tap';
import { conferenceScene } from './support.js';
import { decodeWav } from '../../src/media/wav.js';

t.test('record: the conference mix is a downloadable recording', async (t) => {
  const s = await conferenceScene(t);
  const conf = await s.h.app.callServices.conferences.openByName(s.account.id, 'Recorded', { maxParticipants: 10, record: true });
  const a = await s.join(conf.sid, '+15557770001');
  await s.join(conf.sid, '+15557770002');
  t.equal((await s.h.store.recordings.listForConference(conf.sid))[0]?.status, 'in-progress', 'recording from the start');
  t.equal((await s.call('POST', `/v1/conferences/${conf.sid}`, { form: { status: 'completed' } })).status, 200);

  const [rec] = await s.h.store.recordings.listForConference(conf.sid);
  t.match(rec, { status: 'completed', source: 'conference', conferenceSid: conf.sid, callSid: a.callSid });
  const call = await s.call('GET', `/api/calls/${a.callSid}`);
  t.match(call.body.recordings, [{ sid: rec!.sid, source: 'conference', conference_sid: conf.sid, status: 'completed' }], 'listed under the starter\'s call');
  const media = await s.download(`/api/recordings/${rec!.sid}.wav`);
  t.equal(media.status, 200);
  const wav = decodeWav(media.bytes);
  const fileMs = Math.round((wav.channels[0]!.length / wav.sampleRate) * 1000);
  t.ok(fileMs > 0 && Math.abs(fileMs - rec!.durationMs!) < 100, `the file (${fileMs} ms) is as long as the recording says (${rec!.durationMs} ms)`);
});

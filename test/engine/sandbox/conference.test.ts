// Sandbox conference rooms: the same who-hears-whom rules the real-engine test measures on RTP
// (test/engine/drachtio/conference-room.test.ts), asked of the simulated rooms.
import t from 'tap';
import type { CallLeg, ConferenceMember } from '../../../src/engine/port.js';
import type { SimulatedCall } from '../../../src/engine/sandbox/index.js';
import { sandbox, type Sandbox } from './_support.js';

const ROOM = 'CFroom';
const MUSIC = { file: '/tmp/hold.wav', source: 'https://example.com/hold.wav' };

async function joinThree(sb: Sandbox): Promise<Array<{ call: SimulatedCall; leg: CallLeg; member: ConferenceMember }>> {
  const out = [];
  for (const from of ['+15550000001', '+15550000002', '+15550000003']) {
    const arriving = sb.nextIncoming();
    const call = sb.engine.simulateInbound({ from, to: '+15550001000' });
    const leg = await (await arriving).answer();
    out.push({ call, leg, member: await leg.joinConference(ROOM, { muted: false }) });
  }
  return out;
}

t.test('membership and who hears whom: mute, hold, coach', async (t) => {
  const sb = await sandbox(t);
  const [a, b, c] = await joinThree(sb);
  const hears = (l: typeof a, s: typeof a) => sb.engine.rooms.hears(ROOM, l!.call.id, s!.call.id);
  t.same(sb.engine.rooms.roster(ROOM), [a!.call.id, b!.call.id, c!.call.id]);
  t.ok(hears(a, b) && hears(b, a) && hears(c, a), 'everyone hears the others');
  t.notOk(hears(a, a), 'nobody hears themselves');

  await a!.member.setMuted(true);
  t.ok(!hears(b, a) && !hears(c, a) && hears(a, b), 'muted: not heard, still hears');
  await a!.member.setMuted(false);

  await b!.member.hold(MUSIC);
  t.ok(!hears(a, b) && !hears(b, a), 'held: neither heard nor hearing');
  t.match(b!.call.transcript.at(-1), { type: 'heard-play', url: MUSIC.source }, 'held: hears the music');
  await b!.member.unhold();
  t.ok(hears(a, b) && hears(b, a), 'back after unhold');

  await c!.member.coach(a!.member);
  t.ok(hears(a, c) && !hears(b, c) && hears(c, b), 'coach heard by the coached member only');
  await c!.member.coach(null);
  t.ok(hears(b, c), 'coaching over');
});

t.test('announce reaches everyone; leaving keeps the leg; a hang-up leaves; ending the room hangs everyone up', async (t) => {
  const sb = await sandbox(t);
  const [a, b, c] = await joinThree(sb);
  await a!.member.announce({ file: '/tmp/a.wav', source: 'https://example.com/announce.wav' });
  for (const x of [a, b, c]) t.match(x!.call.transcript.at(-1), { type: 'heard-play', url: 'https://example.com/announce.wav' });

  await c!.member.leave();
  await c!.member.left;
  t.notOk(c!.leg.isEnded, 'the leg stays up after leaving');
  t.match(c!.call.transcript.at(-1), { type: 'conference-left', room: ROOM });
  b!.call.hangup();
  await b!.member.left;
  t.same(sb.engine.rooms.roster(ROOM), [a!.call.id], 'a hung-up leg is out of the room');

  const arriving = sb.nextIncoming();
  const d = sb.engine.simulateInbound({ from: '+15550000004', to: '+15550001000' });
  const dLeg = await (await arriving).answer();
  await dLeg.joinConference(ROOM, { muted: true });
  t.notOk(sb.engine.rooms.hears(ROOM, a!.call.id, d.id), 'joined muted');
  await a!.member.endRoom();
  t.match(await a!.leg.ended, { cause: 'normal', by: 'local' });
  t.ok(dLeg.isEnded, 'every leg in the room was hung up');
  t.same(sb.engine.rooms.roster(ROOM), []);
});

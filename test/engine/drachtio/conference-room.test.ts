// Conference rooms on the real engines, at the engine port: three sipp callers join one mod_conference room, each
// sending its own tone, and what each one hears is measured on its RTP (Goertzel share of each caller's tone):
// everyone hears the others; a muted member is heard by nobody; a held member hears the hold audio and neither
// hears nor is heard; a coach is heard by the coached member only; an announcement reaches everyone; ending the
// room sends a BYE to every caller within 2 s.
import t from 'tap';
import { checker, phase, roomCallers, HOLD_HZ, TONES, type Name } from './support/room-audio.js';
import { enginesOrSkip } from '../../helpers/engines.js';
import { toneWav } from '../../helpers/media-origin.js';
import { tempDir } from '../../helpers/harness.js';
import { until } from '../../helpers/waits.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOM = 'CF0123456789abcdef0123456789abcdef';

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(3 * 60_000);
  const make = realDrivers(t, bins);

  t.test('who hears whom in a room: join, mute, hold, coach, announce, end', async (t) => {
    const d = await make(t);
    const { callers, join } = await roomCallers(t, d, ROOM);
    for (const name of Object.keys(TONES) as Name[]) await join(name);
    const { a, b, c } = callers;

    const check = checker(t);

    let heard = await phase(callers);
    for (const listener of ['a', 'b', 'c'] as const) {
      for (const speaker of ['a', 'b', 'c'] as const) {
        if (listener !== speaker) check(heard, listener, speaker, true, 'everyone hears the others');
      }
      check(heard, listener, listener, false, 'nobody hears themselves');
    }

    await a.member.setMuted(true);
    heard = await phase(callers, [['b', 'a'], ['c', 'a']]);
    check(heard, 'b', 'a', false, 'muted a is not heard by b');
    check(heard, 'c', 'a', false, 'muted a is not heard by c');
    check(heard, 'a', 'b', true, 'muted a still hears b');
    await a.member.setMuted(false);

    const holdFile = path.join(tempDir(t), 'hold.wav');
    writeFileSync(holdFile, toneWav(1, HOLD_HZ));
    await b.member.hold({ file: holdFile, source: 'hold.wav' });
    heard = await phase(callers, [['b', 'a'], ['a', 'b'], ['c', 'b']]);
    check(heard, 'b', 'hold', true, 'held b hears the hold audio (looped past its 1 s)');
    check(heard, 'b', 'a', false, 'held b does not hear the room');
    check(heard, 'a', 'b', false, 'held b is not heard');
    check(heard, 'c', 'b', false, 'held b is not heard by c');
    check(heard, 'a', 'c', true, 'the others go on');
    await b.member.unhold();
    heard = await phase(callers);
    check(heard, 'b', 'hold', false, 'no hold audio after unhold');
    check(heard, 'a', 'b', true, 'b heard again after unhold');
    check(heard, 'b', 'a', true, 'b hears the room again');

    await c.member.coach(a.member);
    heard = await phase(callers);
    check(heard, 'a', 'c', true, 'coach c is heard by a');
    check(heard, 'b', 'c', false, 'coach c is not heard by b');
    check(heard, 'c', 'a', true, 'the coach hears the room');
    await c.member.coach(null);
    heard = await phase(callers);
    check(heard, 'b', 'c', true, 'c heard by everyone once coaching ends');

    const announceFile = path.join(tempDir(t), 'announce.wav');
    writeFileSync(announceFile, toneWav(1, HOLD_HZ));
    await a.member.announce({ file: announceFile, source: 'announce.wav' });
    heard = await phase(callers);
    for (const listener of ['a', 'b', 'c'] as const) check(heard, listener, 'hold', true, 'the announcement reaches everyone');

    const ending = Date.now();
    await a.member.endRoom();
    const codes = await Promise.all(Object.values(callers).map((x) => x.sipp.exited));
    const byeMs = Date.now() - ending;
    t.ok(byeMs <= 2_000, `every caller got its BYE ${byeMs} ms after the room was ended (limit 2000)`);
    await until('every leg ended', 2_000, () => Object.values(callers).every((x) => x.leg.isEnded));
    t.same(codes, [0, 0, 0], 'each caller saw a clean call ended by the platform');
  });
}

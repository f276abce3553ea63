// <Dial><Sip> on the real engines under the SIP target policy: spellings of a listener's loopback address that
// the policy refuses (even with the dev flag, which admits plain loopback) never get an INVITE from drachtio;
// the plain spelling does, and an answering party is reached through the pinned address.
import t, { type Test } from 'tap';
import { createSocket } from 'node:dgram';
import { enginesOrSkip } from '../../helpers/engines.js';
import { xml } from '../../helpers/webhook-app.js';
import { realDrivers, udpPortTaken } from '../../engine-suite/real-driver.js';
import { runParty } from '../../engine-suite/real-sipp.js';
import { freePort } from '../../helpers/server-process.js';
import { scene, CALLER, DID } from '../../engine-suite/flows.js';

/**
 * A UDP socket on 127.0.0.2 that keeps the INVITEs reaching it and turns each down as busy (or says nothing).
 * `invites()`: their request lines; `inviteMessages()`: the whole messages.
 */
async function sipListener(t: Test, silent = false) {
  const socket = createSocket('udp4');
  const requests: string[] = [];
  const messages: string[] = [];
  socket.on('message', (m, from) => {
    const lines = m.toString().split('\r\n');
    requests.push(lines[0]!);
    if (lines[0]!.startsWith('INVITE ')) messages.push(m.toString());
    if (silent || !lines[0]!.startsWith('INVITE ')) return;
    const echoed = lines.filter((l) => /^(Via|From|To|Call-ID|CSeq):/i.test(l));
    socket.send(['SIP/2.0 486 Busy Here', ...echoed, 'Content-Length: 0', '', ''].join('\r\n'), from.port, from.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.2', () => r()));
  t.teardown(() => socket.close());
  return { port: socket.address().port, invites: () => requests.filter((l) => l.startsWith('INVITE ')), inviteMessages: () => [...messages] };
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(4 * 60_000);
  const make = realDrivers(t, bins);

  t.test('hostile spellings of a listening address get no INVITE; the plain spelling does', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const listener = await sipListener(t);
    const p = listener.port;
    const hostile = [`sip:bob@2130706434:${p}`, `sip:bob@0x7f000002:${p}`, `sip:bob@127.0.2:${p}`, `sip:bob@[::ffff:127.0.0.2]:${p}`,
      `sip:bob@[::ffff:7f00:2]:${p}`, `sip:bob@localhost.localdomain:${p}`, `sip:bob@sip.example.com:${p};maddr=127.0.0.2`];
    s.app.on('/voice', xml(`<Dial timeout="5">${hostile.map((u) => `<Sip>${u}</Sip>`).join('')}</Dial><Say>Next.</Say>`));
    const call = await d.inbound(CALLER, DID);
    await call.ended;
    const final = await s.finalCall();
    t.equal(final.status, 'completed');
    t.equal((await d.h.store.calls.timeline(final.sid)).filter((e) => e.kind === 'dial-target-refused').length, hostile.length, 'each refused visibly');
    t.same(listener.invites(), [], 'the listener received no INVITE');

    s.app.on('/voice', xml(`<Dial timeout="5"><Sip>sip:bob@127.0.0.2:${p}</Sip></Dial><Hangup/>`));
    const control = await d.inbound(CALLER, DID);
    await control.ended;
    await s.finalCall();
    t.ok(listener.invites().length >= 1, `the plain loopback spelling (allowed by the dev flag) was dialled: ${listener.invites()[0]}`);
  });

  t.test('X- headers in a <Sip> URI go out as headers of the INVITE; any other header is refused at lint', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const listener = await sipListener(t);
    s.app.on('/voice', xml(`<Dial timeout="5"><Sip>sip:bob@127.0.0.2:${listener.port}?X-Tenant=acme&amp;X-Case=a%20b</Sip></Dial><Hangup/>`));
    await (await d.inbound(CALLER, DID)).ended;
    await s.finalCall();
    const invite = listener.inviteMessages()[0] ?? '';
    t.match(invite.split('\r\n')[0], new RegExp(`^INVITE sip:bob@127\\.0\\.0\\.2:${listener.port} SIP/2\\.0$`), 'the Request-URI carries no headers');
    t.match(invite, /\r\nX-Tenant: acme\r\n/i, 'X-Tenant sent');
    t.match(invite, /\r\nX-Case: a b\r\n/i, 'X-Case sent, percent-decoded');

    s.app.on('/voice', xml(`<Dial timeout="5"><Sip>sip:bob@127.0.0.2:${listener.port}?Route=%3Csip:evil.example.com%3E</Sip></Dial><Hangup/>`));
    await (await d.inbound(CALLER, DID)).ended;
    const refused = await s.finalCall();
    t.equal(refused.hangupCause, 'application-error', 'a Route header is refused before anything is dialled');
    t.equal(listener.invites().length, 1, 'no second INVITE');
  });

  t.test('a far end that never answers anything is given up at the dial timeout, not after 32 s of retransmissions', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const listener = await sipListener(t, true);
    s.app.on('/voice', xml(`<Dial timeout="5"><Sip>sip:bob@127.0.0.2:${listener.port}</Sip></Dial><Hangup/>`));
    const call = await d.inbound(CALLER, DID);
    await call.ended;
    const final = await s.finalCall();
    const child = (await d.h.store.sql.one<{ status: string; created_at: string; ended_at: string }>('SELECT status, created_at, ended_at FROM calls WHERE parent_sid = ?', [final.sid]))!;
    const tookMs = Date.parse(child.ended_at) - Date.parse(child.created_at);
    t.equal(child.status, 'no-answer');
    t.ok(tookMs < 6_500, `the attempt ended ${tookMs} ms after it began (timeout 5 s)`);
    t.ok(listener.invites().length >= 1, 'the INVITE was sent');
  });

  t.test('an allowed SIP destination is reached through the pinned address and bridged', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const port = await freePort();
    const party = await runParty(port, { behavior: 'answer', hangupAfterMs: 2_000 }, d.scratch);
    t.teardown(() => party.kill());
    await udpPortTaken(port);
    s.app.on('/voice', xml(`<Dial timeout="10"><Sip>sip:bob@127.0.0.1:${port}</Sip></Dial><Hangup/>`));
    const call = await d.inbound(CALLER, DID);
    await call.ended;
    const final = await s.finalCall();
    const child = (await d.h.store.sql.one<{ status: string; duration: number }>('SELECT status, duration FROM calls WHERE parent_sid = ?', [final.sid]))!;
    t.equal(child.status, 'completed', 'the party answered');
    t.equal(await party.exited, 0, 'the party completed its scenario');
  });
}

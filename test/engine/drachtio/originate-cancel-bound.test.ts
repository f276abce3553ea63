// A far end that answers the CANCEL but never sends the 487 the INVITE is owed cannot hold an attempt past its ring
// limit: the attempt ends then, its endpoint is destroyed (no engines needed: fakes; the real-engine test with the
// 32 s INVITE transaction bound is unresponsive-far-end.test.ts).
import t from 'tap';
import pino from 'pino';
import type Srf from 'drachtio-srf';
import { originate, type OriginateDeps } from '../../../src/engine/drachtio/originate.js';
import type { Endpoint, MediaServer } from '../../../src/engine/drachtio/fsmrf.js';

/** A far end that rings at once and then says nothing more, whatever it is sent. */
function ringingForever() {
  const seen = { cancels: 0, destroyed: 0 };
  const endpoint = { local: { sdp: 'v=0' }, destroy: async () => { seen.destroyed++; } } as unknown as Endpoint;
  const ms = { createEndpoint: async () => endpoint } as unknown as MediaServer;
  const srf = {
    createUAC: (_uri: string, _opts: unknown, cbs: { cbRequest: (err: unknown, req: unknown) => void; cbProvisional: (res: { status: number }) => void }) => {
      cbs.cbRequest(null, { cancel: () => { seen.cancels++; } });
      setImmediate(() => cbs.cbProvisional({ status: 180 }));
      return new Promise(() => undefined);
    },
  } as unknown as Srf;
  const deps: OriginateDeps = {
    srf, media: () => ms, log: pino({ level: 'silent' }), newId: () => 'leg-1', track: () => undefined,
    carriers: {} as OriginateDeps['carriers'], registrar: {} as OriginateDeps['registrar'],
  };
  return { deps, seen };
}

const target = { kind: 'sip' as const, uri: 'sip:bob@127.0.0.1:5090' };
const ringing = () => new Promise((resolve) => setTimeout(resolve, 20));

t.test('withdrawn while ringing, no 487: the attempt ends at the ring limit, canceled, its endpoint destroyed', async (t) => {
  const far = ringingForever();
  const abort = new AbortController();
  const began = Date.now();
  const pending = originate({ target, callerId: '+15550001000', timeoutMs: 400, signal: abort.signal }, far.deps);
  await ringing();
  abort.abort();
  t.same(await pending, { answered: false, cause: 'canceled' });
  const took = Date.now() - began;
  t.ok(took >= 390 && took < 3_000, `ended at the ring limit (${took} ms after it began, limit 400 ms)`);
  t.same(far.seen, { cancels: 1, destroyed: 1 }, 'one CANCEL; the endpoint released');
});

t.test('the ring limit reached while ringing: no wait for the 487 at all', async (t) => {
  const far = ringingForever();
  const began = Date.now();
  t.same(await originate({ target, callerId: '+15550001000', timeoutMs: 100 }, far.deps), { answered: false, cause: 'no-answer' });
  const took = Date.now() - began;
  t.ok(took >= 95 && took < 2_000, `ended at the ring limit (${took} ms)`);
  t.same(far.seen, { cancels: 1, destroyed: 1 });
});

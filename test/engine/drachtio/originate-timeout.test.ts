// The dial timeout and cancellation hold while the media server is still making the attempt's endpoint: a
// FreeSWITCH slow to answer its INVITE must not keep a Dial waiting past its timeout (no engines needed: fakes).
import t from 'tap';
import pino from 'pino';
import type Srf from 'drachtio-srf';
import { originate, type OriginateDeps } from '../../../src/engine/drachtio/originate.js';
import type { Endpoint, MediaServer } from '../../../src/engine/drachtio/fsmrf.js';

function slowMedia() {
  let deliver!: (ep: Endpoint) => void;
  const destroyed: string[] = [];
  const endpoint = { local: { sdp: 'v=0' }, destroy: async () => { destroyed.push('late endpoint'); } } as unknown as Endpoint;
  const ms = { createEndpoint: () => new Promise<Endpoint>((resolve) => { deliver = resolve; }) } as unknown as MediaServer;
  return { ms, destroyed, deliverLate: () => deliver(endpoint) };
}

function deps(ms: MediaServer, invites: string[]): OriginateDeps {
  const srf = { createUAC: (uri: string) => { invites.push(uri); return new Promise(() => undefined); } } as unknown as Srf;
  return {
    srf, media: () => ms, log: pino({ level: 'silent' }), newId: () => 'leg-1', track: () => undefined,
    carriers: {} as OriginateDeps['carriers'], registrar: {} as OriginateDeps['registrar'],
  };
}

const target = { kind: 'sip' as const, uri: 'sip:bob@127.0.0.1:5090' };

t.test('the timeout ends an attempt whose endpoint never comes; an endpoint that comes late is destroyed', async (t) => {
  const media = slowMedia();
  const invites: string[] = [];
  const result = await originate({ target, callerId: '+15550001000', timeoutMs: 30 }, deps(media.ms, invites));
  t.same(result, { answered: false, cause: 'no-answer' });
  t.same(invites, [], 'no INVITE was sent');
  media.deliverLate();
  await new Promise((resolve) => setImmediate(resolve));
  t.same(media.destroyed, ['late endpoint']);
});

t.test('aborting while the endpoint is being made cancels the attempt at once', async (t) => {
  const media = slowMedia();
  const invites: string[] = [];
  const abort = new AbortController();
  const pending = originate({ target, callerId: '+15550001000', timeoutMs: 60_000, signal: abort.signal }, deps(media.ms, invites));
  abort.abort();
  t.same(await pending, { answered: false, cause: 'canceled' });
  t.same(invites, []);
});

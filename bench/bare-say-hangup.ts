// The bare baseline for bench/sip.ts: drachtio-srf + drachtio-fsmrf with nothing else. Every INVITE is
// answered (connectCaller), one short sentence is spoken with flite, and the call is hung up. No webhook, no
// database, no markup: what the platform's Say + Hangup costs on top of this is what the bench shows.
import { createRequire } from 'node:module';
import Srf from 'drachtio-srf';

export const SENTENCE = 'Hello, this is a test.';

interface BareEndpoint { speak(o: { ttsEngine: string; voice: string; text: string }): Promise<void>; destroy(): Promise<void> }
interface BareMediaServer {
  connectCaller(req: Srf.SrfRequest, res: Srf.SrfResponse): Promise<{ endpoint: BareEndpoint; dialog: Srf.Dialog }>;
  disconnect(): void;
}
const require = createRequire(import.meta.url);
const Mrf = require('drachtio-fsmrf') as new (srf: Srf) => {
  connect(o: { address: string; port: number; secret: string; listenAddress: string }): Promise<BareMediaServer>;
};

export interface BareOptions {
  drachtio: { host: string; port: number; secret: string };
  freeswitch: { host: string; port: number; password: string };
}

/** `onInvite` is told when each INVITE reaches the script (by calling number): the bare "reply" moment. */
export async function startBare(o: BareOptions, onInvite?: (from: string, at: number) => void): Promise<{ stop(): void }> {
  const srf = new Srf();
  srf.connect({ host: o.drachtio.host, port: o.drachtio.port, secret: o.drachtio.secret });
  await new Promise<void>((resolve, reject) => {
    srf.once('connect', (err: Error | null) => (err ? reject(err) : resolve()));
  });
  const ms = await new Mrf(srf).connect({
    address: o.freeswitch.host, port: o.freeswitch.port, secret: o.freeswitch.password, listenAddress: '127.0.0.1',
  });
  srf.invite(async (req, res) => {
    onInvite?.(req.callingNumber, performance.timeOrigin + performance.now());
    try {
      const { endpoint, dialog } = await ms.connectCaller(req, res);
      dialog.on('destroy', () => void endpoint.destroy().catch(() => undefined));
      await endpoint.speak({ ttsEngine: 'flite', voice: 'slt', text: SENTENCE });
      await Promise.all([Promise.resolve(dialog.destroy()), endpoint.destroy()]);
    } catch {
      // The caller went away first, or the call failed: sipp counts it.
    }
  });
  return {
    stop() {
      ms.disconnect();
      srf.disconnect();
    },
  };
}

// The bare baseline for bench/conference.ts: drachtio-srf + drachtio-fsmrf with nothing else. Incoming calls are
// answered and put in the conference room `route` names for their arrival order; `join` originates a call to a SIP URI and puts
// it in a room, resolving once FreeSWITCH lists the member; `endAll` hangs every call up. No webhook, database,
// markup or API.
import { createRequire } from 'node:module';
import Srf from 'drachtio-srf';

interface BareEndpoint {
  readonly uuid: string;
  readonly local: { sdp: string };
  execute(app: string, arg?: string): Promise<unknown>;
  api(command: string, args?: string): Promise<{ getBody(): string }>;
  modify(sdp: string): Promise<unknown>;
  destroy(): Promise<void>;
}
interface BareMediaServer {
  connectCaller(req: Srf.SrfRequest, res: Srf.SrfResponse): Promise<{ endpoint: BareEndpoint; dialog: Srf.Dialog }>;
  createEndpoint(): Promise<BareEndpoint>;
  disconnect(): void;
}
const require = createRequire(import.meta.url);
const Mrf = require('drachtio-fsmrf') as new (srf: Srf) => {
  connect(o: { address: string; port: number; secret: string; listenAddress: string }): Promise<BareMediaServer>;
};

export interface BareConference {
  /** The rooms for the next incoming calls, by arrival order (counted from 0 again). */
  route(roomOf: (arrival: number) => string): void;
  /** Originates to `uri` and joins the answered call to `room`; resolves when the member is in the room. */
  join(uri: string, room: string): Promise<void>;
  /** Sends BYE on every call and frees its endpoint. */
  endAll(): Promise<void>;
  stop(): void;
}

export async function startBareConference(o: {
  drachtio: { host: string; port: number; secret: string };
  freeswitch: { host: string; port: number; password: string };
}): Promise<BareConference> {
  const srf = new Srf();
  srf.connect({ host: o.drachtio.host, port: o.drachtio.port, secret: o.drachtio.secret });
  await new Promise<void>((resolve, reject) => srf.once('connect', (err: Error | null) => (err ? reject(err) : resolve())));
  const ms = await new Mrf(srf).connect({ address: o.freeswitch.host, port: o.freeswitch.port, secret: o.freeswitch.password, listenAddress: '127.0.0.1' });
  let arrivals = 0;
  let roomOf = (i: number) => `bare${Math.floor(i / 3)}`;
  const calls = new Set<{ ep: BareEndpoint; dialog: Srf.Dialog }>();
  const hold = (ep: BareEndpoint, dialog: Srf.Dialog, room: string) => {
    const call = { ep, dialog };
    calls.add(call);
    dialog.on('destroy', () => {
      calls.delete(call);
      void ep.destroy().catch(() => undefined);
    });
    void ep.execute('conference', `${room}@default`).catch(() => undefined);
  };
  srf.invite(async (req, res) => {
    const room = roomOf(arrivals++);
    try {
      const { endpoint, dialog } = await ms.connectCaller(req, res);
      hold(endpoint, dialog, room);
    } catch { /* the caller went away: sipp counts it */ }
  });
  return {
    route(rooms) {
      arrivals = 0;
      roomOf = rooms;
    },
    async join(uri, room) {
      const ep = await ms.createEndpoint();
      const dialog = await srf.createUAC(uri, { localSdp: ep.local.sdp });
      await ep.modify(dialog.remote.sdp);
      hold(ep, dialog, room);
      for (;;) {
        const list = (await ep.api('conference', `${room} list`)).getBody();
        if (list.includes(ep.uuid)) return;
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async endAll() {
      await Promise.all([...calls].map(async (call) => {
        calls.delete(call);
        await Promise.allSettled([call.dialog.destroy(), call.ep.destroy()]);
      }));
    },
    stop() {
      ms.disconnect();
      srf.disconnect();
    },
  };
}

// What a control plane adds to every media channel it opens on a FreeSWITCH: a tag naming the control-plane
// instance (so a successor can hang up exactly the channels a dead instance left behind: `hupall ...
// OWNER_VARIABLE id`), and a report of each endpoint creation to the server's load (see media-load.ts), since a
// session FreeSWITCH does not have yet is missing from its own count. One proxy in front of fsmrf's MediaServer
// does both; endpoints keep naming fsmrf's own object as their `mediaserver`, which is how a server is found for them.
import type Srf from 'drachtio-srf';
import type { MediaServer } from './fsmrf.js';

/** FreeSWITCH keeps an INVITE's X- headers as channel variables named sip_h_<header>. */
const OWNER_HEADER = 'X-Ringbase-Owner';
export const OWNER_VARIABLE = `sip_h_${OWNER_HEADER}`;

export interface ChannelHooks {
  /** The control-plane instance whose channels these are; none: channels go untagged. */
  instanceId?: string;
  /** An endpoint is being created: returns what to call when that is over, done or failed. */
  creating(): () => void;
}

/** What the proxy answers with the object it wraps, and with its hooks. */
const FSMRF_SERVER = Symbol('fsmrf MediaServer');
const HOOKS = Symbol('channel hooks');

type Hooked = MediaServer & { [FSMRF_SERVER]?: MediaServer; [HOOKS]?: ChannelHooks };

/**
 * fsmrf's own MediaServer behind the proxy: an endpoint built outside fsmrf must name it as its `mediaserver`, as
 * the endpoints fsmrf builds do, or nothing finds which server the endpoint is on (a conference join then had no
 * server for a WebRTC seat, and its agent heard nothing).
 */
export function fsmrfServer(ms: MediaServer): MediaServer { return (ms as Hooked)[FSMRF_SERVER] ?? ms; }

/** Reports a creation that does not go through createEndpoint or connectCaller; returns its end. */
export function creationOn(ms: MediaServer): () => void { return (ms as Hooked)[HOOKS]?.creating() ?? (() => undefined); }

export function hookChannels(ms: MediaServer, hooks: ChannelHooks): MediaServer {
  const tags = hooks.instanceId ? { [OWNER_HEADER]: hooks.instanceId } : undefined;
  const withTags = <O extends { headers?: Record<string, string> }>(opts: O | undefined) => (tags ? { ...opts, headers: { ...opts?.headers, ...tags } } : opts);
  const counted = async <R>(create: () => Promise<R>): Promise<R> => {
    const created = hooks.creating();
    try {
      return await create();
    } finally {
      created();
    }
  };
  return new Proxy(ms, {
    get(target, prop) {
      if (prop === FSMRF_SERVER) return target;
      if (prop === HOOKS) return hooks;
      if (prop === 'channelTags') return tags;
      if (prop === 'createEndpoint') return (opts?: Parameters<MediaServer['createEndpoint']>[0]) => counted(() => target.createEndpoint(withTags(opts)));
      if (prop === 'connectCaller') {
        return (req: Srf.SrfRequest, res: Srf.SrfResponse, opts?: Parameters<MediaServer['connectCaller']>[2]) => counted(() => target.connectCaller(req, res, withTags(opts)));
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

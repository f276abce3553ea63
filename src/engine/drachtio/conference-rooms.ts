// One media server per conference room: a room opens on the server of its first member's media (or the one the
// control planes agreed, when members join through several: RoomPlacement), and a member whose
// media is on another server joins through a relay, a pair of endpoints joined by RTP (one on each server, set up
// like an outbound call: the room's side makes the offer, the member's side answers it) with the member's channel
// bridged to its side. The room's mixing, member commands (mute, hold, coach, announce, record) and the end of the
// room all happen on the room's server; ending the room hangs up the relay there, and with it the member's leg.
import { EngineError, type ConferenceJoinOptions, type ConferenceMember, type RoomPlacement } from '../port.js';
import { joinConference } from './conference.js';
import type { Endpoint } from './fsmrf.js';
import { quietly, type MediaContext } from './media-context.js';
import type { MediaLink } from './media-link.js';
import type { MediaPool } from './media-pool.js';

type Leg = Pick<MediaContext, 'ep' | 'ended' | 'isEnded' | 'log'>;

interface Room { link: MediaLink; members: number }

export class ConferenceRooms {
  readonly #rooms = new Map<string, Room>();

  constructor(private readonly pool: MediaPool) {}

  /** Joins `leg` to `room` on the room's server; `hangup` ends the leg when the room ends under a relayed member. */
  async join(leg: Leg, room: string, opts: ConferenceJoinOptions, hangup: () => Promise<void>): Promise<ConferenceMember> {
    const own = this.pool.linkOf(leg.ep);
    if (!own) return joinConference(leg, room, opts);
    const home = opts.place ? await this.#agreed(room, own, opts.place) : this.#chosen(room, own);
    home.members++;
    try {
      const member = home.link === own ? await joinConference(leg, room, opts) : await this.#throughRelay(leg, home.link, room, opts, hangup);
      void member.left.then(() => this.#left(room, home));
      return member;
    } catch (err) {
      this.#left(room, home);
      throw err;
    }
  }

  /** The room's server as this process chose it: its first member's. */
  #chosen(room: string, own: MediaLink): Room {
    const entry = this.#rooms.get(room);
    if (entry?.link.connected) return entry;
    // A room whose server is gone is gone with it: the next member opens it afresh, beside its own media.
    return this.#entryOn(room, own);
  }

  /** The room's server as the control planes agreed it (RoomPlacement); one this process cannot reach is replaced. */
  async #agreed(room: string, own: MediaLink, place: RoomPlacement): Promise<Room> {
    let name = await place(own.name, null);
    let link = this.pool.byName(name);
    if (!link?.connected) {
      name = await place(own.name, name);
      link = this.pool.byName(name);
    }
    if (!link?.connected) throw new EngineError(`conference ${room}: its media server ${name} is not connected here`);
    const entry = this.#rooms.get(room);
    return entry?.link === link ? entry : this.#entryOn(room, link);
  }

  #entryOn(room: string, link: MediaLink): Room {
    const entry = { link, members: 0 };
    this.#rooms.set(room, entry);
    return entry;
  }

  /** Which server holds a room now (null when it has no member), for operators and tests. */
  serverOf(room: string): string | null { return this.#rooms.get(room)?.link.name ?? null; }

  #left(room: string, entry: Room): void {
    if (--entry.members === 0 && this.#rooms.get(room) === entry) this.#rooms.delete(room);
  }

  async #throughRelay(leg: Leg, home: MediaLink, room: string, opts: ConferenceJoinOptions, hangup: () => Promise<void>): Promise<ConferenceMember> {
    const roomServer = home.server;
    const legServer = this.pool.linkOf(leg.ep)?.server;
    if (!roomServer || !legServer) throw new EngineError(`conference ${room}: its media server is not connected`);
    const relay: Endpoint[] = [];
    const release = async () => { await Promise.all(relay.splice(0).map((ep) => ep.destroy().catch(() => undefined))); };
    let member: ConferenceMember;
    try {
      home.placed();
      const far = await roomServer.createEndpoint();
      relay.push(far);
      const near = await legServer.createEndpoint({ remoteSdp: far.local.sdp });
      relay.push(near);
      await far.modify(near.local.sdp);
      await leg.ep.bridge(near);
      member = await joinConference({ ep: far, ended: leg.ended, get isEnded() { return leg.isEnded; }, log: leg.log }, room, opts);
      // fsmrf reports 'destroy' only when FreeSWITCH hangs a channel up, not when it is destroyed from here: ending
      // the room hangs up its members' channels, and this member's is the relay's far end.
      far.once('destroy', () => void hangup());
      void member.left.then(async () => {
        if (!leg.isEnded) await quietly(leg, 'conference relay unbridge', () => leg.ep.unbridge());
        await release();
      });
    } catch (err) {
      await release();
      throw err instanceof EngineError ? err : new EngineError(`conference ${room}: could not reach its media server: ${(err as Error).message}`);
    }
    leg.log.info({ room, server: home.name }, 'joined a conference on another media server through a relay');
    return member;
  }
}

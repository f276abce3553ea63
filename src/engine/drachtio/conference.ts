// A leg in a mod_conference room. The `conference` application holds the channel for as long as the leg is a
// member, so joining is one execute whose completion is the leave; the join itself is confirmed by FreeSWITCH's
// add-member event for this channel (with a deadline). Member and room operations that fsmrf's Conference class
// lacks (hold music to one member, relate for coaching, ending the room) are `conference <room> ...` API commands.
import { EngineError, type ConferenceJoinOptions, type ConferenceMember, type LocalMedia, type Prompt } from '../port.js';
import type { PromptCache } from '../../media/prompt-cache.js';
import type { MediaLease } from '../../media/media-cache.js';
import { wavFileAudio } from '../../media/wav.js';
import { systemClock } from '../../clock.js';
import { sleepUnless } from '../../waits.js';
import type { Endpoint, EslEvent } from './fsmrf.js';
import { breakMedia, playTarget, speakArgs } from './media.js';
import { quietly, type MediaContext } from './media-context.js';

export const JOIN_TIMEOUT_MS = 5_000;
/** A member's private prompts are timed in real time, as the media server plays them. */
const WALL_CLOCK = systemClock();
const MAINTENANCE = 'conference::maintenance';

/** `prompts` renders what a member hears alone (playAlone) into files: mod_conference plays files to one member. */
type Leg = Pick<MediaContext, 'ep' | 'ended' | 'isEnded' | 'log'> & { readonly prompts?: PromptCache | null };

/** FreeSWITCH room names are the control plane's sids; anything else could smuggle API syntax into commands. */
function checkRoom(room: string): void {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(room)) throw new EngineError(`invalid conference room name: ${room}`);
}

/** A recording path goes into an API command line: a plain absolute path and nothing else. */
function recordTarget(file: string): string {
  if (!/^\/[A-Za-z0-9_./-]+$/.test(file)) throw new EngineError(`invalid recording path: ${file}`);
  return file;
}

export async function joinConference(leg: Leg, room: string, opts: ConferenceJoinOptions): Promise<ConferenceMember> {
  checkRoom(room);
  if (leg.isEnded) throw new EngineError('the leg has ended');
  const { ep } = leg;
  let onEvent: ((evt: EslEvent) => void) | undefined;
  const joined = new Promise<string>((resolve, reject) => {
    onEvent = (evt) => {
      if (evt.getHeader('Event-Subclass') !== MAINTENANCE || evt.getHeader('Conference-Name') !== room) return;
      if (evt.getHeader('Action') === 'add-member') resolve(evt.getHeader('Member-ID') ?? '');
    };
    ep.conn.on('esl::event::CUSTOM::*', onEvent);
    setTimeout(() => reject(new EngineError(`conference ${room}: the media server did not confirm the join within ${JOIN_TIMEOUT_MS} ms`)), JOIN_TIMEOUT_MS).unref();
    void leg.ended.then(() => reject(new EngineError('the leg ended while joining')));
  });
  // Resolves when the conference application returns: the member is out of the room.
  const left = ep.execute('conference', `${room}@default${opts.muted ? '+flags{mute}' : ''}`).then(() => undefined, () => undefined);
  try {
    const memberId = await joined;
    if (!/^\d+$/.test(memberId)) throw new EngineError(`conference ${room}: add-member without a member id`);
    return new DrachtioMember(leg, room, memberId, opts.muted, Promise.race([left, leg.ended.then(() => undefined)]));
  } catch (err) {
    // A join that was not confirmed must not leave the channel in a room nobody tracks.
    await quietly(leg, 'conference join cleanup', () => breakMedia(ep));
    throw err;
  } finally {
    ep.conn.removeListener('esl::event::CUSTOM::*', onEvent!);
  }
}

class DrachtioMember implements ConferenceMember {
  #muted: boolean;
  #held = false;
  #out = false;
  /** Aborted when the member is out of the room (its leg's end included). */
  readonly #gone = new AbortController();

  constructor(private readonly leg: Leg, readonly room: string, readonly memberId: string, muted: boolean, readonly left: Promise<void>) {
    this.#muted = muted;
    void left.then(() => { this.#out = true; this.#gone.abort(); });
  }

  get #ep(): Endpoint { return this.leg.ep; }

  /**
   * One `conference <room> <command>` API call; failures after the member left are expected and quiet. It goes out
   * on this channel's event socket, which closes with the channel: a reply that can no longer come is not waited for.
   */
  async #api(command: string): Promise<string> {
    if (this.#out) return '';
    return this.#onChannel(() => this.#ep.api('conference', `${this.room} ${command}`).then((evt) => evt.getBody()));
  }

  async #onChannel(op: () => Promise<string>): Promise<string> {
    const gone = this.leg.ended.then(() => undefined);
    return (await quietly(this.leg, 'conference command', () => Promise.race([op(), gone]))) ?? '';
  }

  async setMuted(muted: boolean): Promise<void> {
    this.#muted = muted;
    if (!this.#held) await this.#api(`${muted ? 'mute' : 'unmute'} ${this.memberId}`);
  }

  async hold(music: LocalMedia | null): Promise<void> {
    this.#held = true;
    await this.#api(`mute ${this.memberId}`);
    await this.#api(`deaf ${this.memberId}`);
    await this.#api(`stop current ${this.memberId}`);
    const file = music ? playTarget(music) : null;
    // mod_conference repeats a member's file while it is given loops=inf, until `stop`.
    if (file) await this.#api(`play {loops=inf}${file} ${this.memberId}`);
  }

  async playAlone(prompts: Prompt[], stop: AbortSignal): Promise<boolean> {
    for (const prompt of prompts) {
      if (stop.aborted || this.#out) return false;
      const lease = prompt.kind === 'say' && !prompt.audio ? await this.#spoken(prompt.text, prompt.voice) : null;
      try {
        const media = prompt.kind === 'play' ? prompt.media : prompt.kind === 'say' ? prompt.audio : undefined;
        const file = media ? playTarget(media) : lease?.file ?? null;
        const ms = prompt.kind === 'pause' ? prompt.seconds * 1000 : file ? wavFileAudio(file)?.durationMs : undefined;
        if (ms === undefined) {
          this.leg.log.warn({ prompt: prompt.kind }, 'conference member: a prompt that cannot be played alone was skipped');
          continue;
        }
        if (file) await this.#api(`play ${file} ${this.memberId}`);
        if (!(await this.#played(ms, stop))) {
          if (file) await this.#api(`stop all ${this.memberId}`);
          return false;
        }
      } finally {
        lease?.release();
      }
    }
    return !this.#out;
  }

  /**
   * The prompt as a rendered file (rendered now when it was not yet: the member hears nothing for the render's
   * time, as long as the speech, the first time only). Null when the text cannot be rendered.
   */
  async #spoken(text: string, voice: string): Promise<MediaLease | null> {
    const prompts = this.leg.prompts;
    if (!prompts) return null;
    const args = speakArgs(text, voice);
    return prompts.take(args.text, args.voice) ?? ((await prompts.prepare(args.text, args.voice)) ? prompts.take(args.text, args.voice) : null);
  }

  /** True after `ms`; false as soon as `stop` aborts or the member is out of the room. */
  #played(ms: number, stop: AbortSignal): Promise<boolean> {
    return sleepUnless(WALL_CLOCK, ms, AbortSignal.any([stop, this.#gone.signal]));
  }

  async unhold(): Promise<void> {
    this.#held = false;
    // Stopped first: hold music left playing after unhold is a known trap.
    await this.#api(`stop all ${this.memberId}`);
    await this.#api(`undeaf ${this.memberId}`);
    if (!this.#muted) await this.#api(`unmute ${this.memberId}`);
  }

  /** The room's members as `conference list` prints them: `id;register string;uuid;...` per line. */
  async #roster(): Promise<Array<{ id: string; uuid: string }>> {
    return (await this.#api('list')).split('\n').map((line) => line.split(';'))
      .filter((f) => /^\d+$/.test(f[0] ?? '') && /^[0-9a-f-]{36}$/.test(f[2] ?? ''))
      .map((f) => ({ id: f[0]!, uuid: f[2]! }));
  }

  async coach(target: ConferenceMember | null): Promise<void> {
    const others = (await this.#roster()).map((m) => m.id).filter((id) => id !== this.memberId);
    const targetId = target instanceof DrachtioMember ? target.memberId : null;
    for (const other of others) {
      await this.#api(`relate ${this.memberId} ${other} ${targetId === null || other === targetId ? 'clear' : 'nospeak'}`);
    }
  }

  async announce(media: LocalMedia): Promise<void> {
    const file = playTarget(media);
    if (file) await this.#api(`play ${file}`);
  }

  async recordRoom(file: string): Promise<void> {
    await this.#api(`recording start ${recordTarget(file)}`);
  }

  async stopRoomRecording(file: string): Promise<void> {
    await this.#api(`recording stop ${recordTarget(file)}`);
  }

  async leave(): Promise<void> {
    await this.#api(`kick ${this.memberId}`);
    await this.left;
  }

  /**
   * mod_conference's `hup all` only removes members; their channels are hung up here, so every leg gets its BYE.
   * This member's own channel goes last: its event socket carries the other commands.
   */
  async endRoom(): Promise<void> {
    const members = await this.#roster();
    const kill = (uuid: string) => this.#onChannel(() => this.#ep.api('uuid_kill', `${uuid} NORMAL_CLEARING`).then(() => ''));
    await Promise.all(members.filter((m) => m.uuid !== this.#ep.uuid).map((m) => kill(m.uuid)));
    await kill(this.#ep.uuid);
  }
}

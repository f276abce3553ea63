// Simulated conference rooms: membership and who hears whom, computed from the same member states mod_conference
// keeps (muted, held = muted + deaf, coaching relations), so call flows and tests can ask "does A hear B now?".
import { EngineError, type ConferenceJoinOptions, type ConferenceMember, type LocalMedia, type Prompt } from '../port.js';
import type { Line } from './line.js';
import type { Clock } from '../../clock.js';
import { writeWav } from '../../media/wav.js';
import { callAudio } from './audio.js';
import { promptMedia } from './media-timing.js';

class SandboxMember implements ConferenceMember {
  muted: boolean;
  held = false;
  /** Coaching: heard by this member only. */
  coaching: SandboxMember | null = null;
  readonly left: Promise<void>;
  #resolveLeft!: () => void;
  readonly #gone = new AbortController();
  #stopWatching: () => void;

  constructor(readonly rooms: SandboxRooms, readonly room: string, readonly line: Line, opts: ConferenceJoinOptions) {
    this.muted = opts.muted;
    this.left = new Promise((resolve) => { this.#resolveLeft = resolve; });
    this.#stopWatching = line.onEnd(() => this.#out());
    line.transcript.add({ type: 'conference-joined', room });
  }

  async setMuted(muted: boolean): Promise<void> { this.muted = muted; }

  async hold(music: LocalMedia | null): Promise<void> {
    this.held = true;
    if (music) this.line.transcript.add({ type: 'heard-play', url: music.source });
  }

  async unhold(): Promise<void> { this.held = false; }

  async playAlone(prompts: Prompt[], stop: AbortSignal): Promise<boolean> {
    const until = AbortSignal.any([stop, this.#gone.signal]);
    for (const prompt of prompts) if (!(await this.line.perform(promptMedia(prompt), until))) return false;
    return true;
  }

  async coach(target: ConferenceMember | null): Promise<void> {
    this.coaching = target instanceof SandboxMember ? target : null;
  }

  async announce(media: LocalMedia): Promise<void> {
    for (const member of this.rooms.members(this.room)) member.line.transcript.add({ type: 'heard-play', url: media.source });
  }

  async recordRoom(file: string): Promise<void> { this.rooms.startRecording(this.room, file, this.line.clock); }

  async stopRoomRecording(file: string): Promise<void> { this.rooms.stopRecording(this.room, file); }

  async leave(): Promise<void> {
    this.#stopWatching();
    this.#out();
  }

  async endRoom(): Promise<void> {
    for (const member of this.rooms.members(this.room)) member.line.end({ cause: 'normal', by: 'local' });
  }

  #out(): void {
    if (!this.rooms.remove(this)) return;
    if (!this.line.isEnded) this.line.transcript.add({ type: 'conference-left', room: this.room });
    this.#gone.abort();
    this.#resolveLeft();
  }
}

interface RoomRecording { file: string; clock: Clock; since: number }

/** Every room of one sandbox engine. */
export class SandboxRooms {
  readonly #rooms = new Map<string, Set<SandboxMember>>();
  readonly #recordings = new Map<string, RoomRecording[]>();

  startRecording(room: string, file: string, clock: Clock): void {
    this.#recordings.set(room, [...(this.#recordings.get(room) ?? []), { file, clock, since: clock.now() }]);
  }

  /** Writes the file (a simulated mix as long as the recording ran); a room that empties stops its recordings. */
  stopRecording(room: string, file?: string): void {
    const all = this.#recordings.get(room) ?? [];
    for (const r of all.filter((x) => file === undefined || x.file === file)) {
      writeWav(r.file, callAudio(r.clock.now() - r.since, 'both', false));
    }
    const rest = all.filter((x) => file !== undefined && x.file !== file);
    if (rest.length > 0) this.#recordings.set(room, rest);
    else this.#recordings.delete(room);
  }

  join(line: Line, room: string, opts: ConferenceJoinOptions): ConferenceMember {
    if (line.isEnded) throw new EngineError('the leg has ended');
    const member = new SandboxMember(this, room, line, opts);
    const members = this.#rooms.get(room) ?? new Set();
    members.add(member);
    this.#rooms.set(room, members);
    return member;
  }

  members(room: string): SandboxMember[] { return [...(this.#rooms.get(room) ?? [])]; }

  remove(member: SandboxMember): boolean {
    const members = this.#rooms.get(member.room);
    if (!members?.delete(member)) return false;
    if (members.size === 0) {
      this.#rooms.delete(member.room);
      this.stopRecording(member.room);
    }
    return true;
  }

  /** Line ids of the room's members, in join order. */
  roster(room: string): string[] { return this.members(room).map((m) => m.line.id); }

  /** Whether the member on line `listener` hears the one on line `speaker` right now. */
  hears(room: string, listener: string, speaker: string): boolean {
    const byLine = new Map(this.members(room).map((m) => [m.line.id, m]));
    const l = byLine.get(listener);
    const s = byLine.get(speaker);
    if (!l || !s || l === s || l.held || s.held || s.muted) return false;
    return s.coaching === null || s.coaching === l;
  }
}

// How loaded one media server is: FreeSWITCH's session count from the last probe, plus the media placed on it that
// this count cannot include. A probe's count is taken some time after the probe was sent; media placed after the
// send, or still being created at the send (its INVITE on the way to FreeSWITCH, which takes hundreds of ms on a
// busy machine), may be missing from it, so it stays counted on top until a probe sent after its creation answers.
// Taking each reply as the whole load made a server look emptier than it was until the next probe, and the next
// call went there again (two servers under load: 3 and 1 calls instead of 2 and 2).

/** picked: chosen for new media; creating: its endpoint is being created; created: FreeSWITCH has the session. */
interface Placement { state: 'picked' | 'creating' | 'created'; at: number }

export class MediaLoad {
  /** Orders picks, creations and probe sends (a counter, so events in the same millisecond still have an order). */
  #clock = 0;
  #probed = 0;
  /** The send mark of the probe whose count is in #probed: an older probe answering later changes nothing. */
  #probedAt = 0;
  #placements: Placement[] = [];

  get value(): number { return this.#probed + this.#placements.length; }

  /** New media was assigned here: counted from now (its endpoint is created next). */
  picked(): void { this.#placements.push({ state: 'picked', at: ++this.#clock }); }

  /**
   * An endpoint is being created here: it takes over the oldest pick still waiting for one, or counts on its own
   * (a relay, a creation with no pick). The function returned says the creation is over, done or failed: from then
   * on a probe's count says whether the session is there.
   */
  creating(): () => void {
    let creation = this.#placements.find((p) => p.state === 'picked');
    if (creation) creation.state = 'creating';
    else this.#placements.push(creation = { state: 'creating', at: ++this.#clock });
    const placement = creation;
    return () => { if (placement.state === 'creating') Object.assign(placement, { state: 'created', at: ++this.#clock }); };
  }

  /** A probe goes out now: the mark to hand back with its count. */
  probeSent(): number { return ++this.#clock; }

  /**
   * The count a probe sent at `sentAt` got. It includes what was created before the send; a pick that had no
   * endpoint under way by then never needed one (speech rendering, an originate with no route) or is counted again
   * when its creation starts.
   */
  probed(count: number, sentAt: number): void {
    if (sentAt < this.#probedAt) return;
    this.#probed = count;
    this.#probedAt = sentAt;
    this.#placements = this.#placements.filter((p) => p.state === 'creating' || p.at > sentAt);
  }

  /** A new connection: FreeSWITCH starts afresh, nothing of ours is on it. */
  reset(): void {
    this.#probed = 0;
    this.#placements = [];
  }
}

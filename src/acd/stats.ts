// What the ACD has done since this process started, per queue sid (Prometheus counters read these at scrape time).
export type AcdCount = 'offered' | 'answered' | 'abandoned';

export class AcdStats {
  readonly #counts = new Map<string, Record<AcdCount, number>>();

  count(queueSid: string, what: AcdCount): void {
    const c = this.#counts.get(queueSid) ?? { offered: 0, answered: 0, abandoned: 0 };
    c[what]++;
    this.#counts.set(queueSid, c);
  }

  entries(): Array<[string, Record<AcdCount, number>]> { return [...this.#counts]; }
}

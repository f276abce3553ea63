export interface Position {
  line: number;
  column: number;
}

/** Offset → 1-based line/column, by binary search over line starts (built once per document). */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(src: string) {
    for (let i = src.indexOf('\n'); i !== -1; i = src.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  at(offset: number): Position {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (this.starts[lo] ?? 0) + 1 };
  }
}

export interface MarkupIssue {
  code: string;
  message: string;
  line?: number;
  column?: number;
  /** JSON documents only: where the problem is, e.g. `$[1].text`. */
  path?: string;
}

/** Where an issue points; every field optional because not every problem has a location. */
export interface IssueLocation {
  line?: number;
  column?: number;
  path?: string;
}

export class MarkupError extends Error {
  readonly issues: MarkupIssue[];

  constructor(issues: MarkupIssue[]) {
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super(first ? `${formatIssue(first)}${more}` : 'invalid markup');
    this.name = 'MarkupError';
    this.issues = issues;
  }
}

export function formatIssue(issue: MarkupIssue): string {
  const where: string[] = [];
  if (issue.line !== undefined) where.push(`${issue.line}:${issue.column ?? 1}`);
  if (issue.path !== undefined) where.push(issue.path);
  const prefix = where.length > 0 ? `${where.join(' ')} ` : '';
  return `${prefix}${issue.code}: ${issue.message}`;
}

/** One line per issue, e.g. `3:5 unknown_attribute: <Say> has no attribute "colour"`. */
export function formatIssues(issues: readonly MarkupIssue[]): string {
  return issues.map(formatIssue).join('\n');
}

/**
 * Collects every problem in a document so an author can fix them all in one round trip.
 * Capped so that a pathological document cannot make the error itself huge.
 */
export class IssueList {
  static readonly MAX = 50;
  readonly items: MarkupIssue[] = [];
  private dropped = 0;

  add(code: string, message: string, where: IssueLocation = {}): void {
    if (this.items.length >= IssueList.MAX) {
      this.dropped++;
      return;
    }
    const issue: MarkupIssue = { code, message };
    if (where.line !== undefined) {
      issue.line = where.line;
      issue.column = where.column ?? 1;
    }
    if (where.path !== undefined) issue.path = where.path;
    this.items.push(issue);
  }

  get empty(): boolean {
    return this.items.length === 0;
  }

  toError(): MarkupError {
    // Readers visit attributes and children in whatever order suits them; authors read top to bottom.
    const issues = [...this.items].sort(
      (a, b) => (a.line ?? Infinity) - (b.line ?? Infinity) || (a.column ?? 0) - (b.column ?? 0),
    );
    if (this.dropped > 0) {
      issues.push({ code: 'too_many_issues', message: `${this.dropped} further issues were not reported` });
    }
    return new MarkupError(issues);
  }

  /** Throws if anything was collected. */
  check(): void {
    if (!this.empty) throw this.toError();
  }
}

export function fail(code: string, message: string, where: IssueLocation = {}): never {
  const list = new IssueList();
  list.add(code, message, where);
  throw list.toError();
}

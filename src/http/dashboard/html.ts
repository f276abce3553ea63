// Markup is built only through the `html` tag: every interpolated value is escaped unless it is already Html,
// so user-provided text (webhook URLs, labels, IVR prompts, transcripts) can never become markup.

export class Html {
  constructor(readonly value: string) {}
  toString(): string { return this.value; }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => { out += render(v) + strings[i + 1]!; });
  return new Html(out);
}

/** For a literal the page itself provides (never user input). */
export const raw = (text: string) => new Html(text);

export type { Part as HtmlPart };

// The one rule for every name the platform takes (accounts, queues, agents, conferences, campaigns, dispositions, trunk
// labels, key names, number references, attribute keys) and for short free text (notes, break reasons, attribute values).
// Names are shown to people (dashboard, agent screens, events) and typed back into paths and markup, so a name is
// what it looks like: visible text on one line. Nothing here knows HTTP; the API's schemas (format "name" and
// "text", src/http/validation.ts), markup and the dashboard's forms all ask these functions.

/** Longest name of each kind, in characters (Unicode code points, as JSON Schema's maxLength counts them). */
export const NAME_LIMITS = {
  queue: 64, agent: 64, disposition: 64, apiKey: 64, numberReference: 64, attributeKey: 64, stream: 64,
  conference: 128, account: 128, campaign: 255, trunkLabel: 255, trunkReference: 255,
} as const;

/** Longest free text of each kind, in characters. */
export const TEXT_LIMITS = { dispositionNotes: 1_000, breakReason: 200, attributeValue: 1_024, machineMessage: 1_000 } as const;

/** Besides CR and LF: next line (a control), line and paragraph separators. */
const LINE_BREAKS = new Set(['\u0085', '\u2028', '\u2029']);
/** Marks that reorder the text around them when it is displayed (Trojan Source): the stored order is not the shown one. */
const BIDI = /^[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]$/u;
/**
 * Characters that show nothing: format characters, default-ignorable ones (zero-width spaces, word joiners, tags),
 * fillers that render blank, private-use and non-characters. Kept: the joiners and variation selectors that
 * scripts and emoji need to render (ZWNJ, ZWJ, VS1-16, Mongolian FVS, ideographic variation selectors); a name
 * made of those alone still has nothing visible and is refused below.
 */
const INVISIBLE = /^[\p{Cf}\p{Co}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}\u2800]$/u;
const NEEDED_TO_RENDER = /^[\u200C\u200D\uFE00-\uFE0F\u180B-\u180D\u180F\u{E0100}-\u{E01EF}]$/u;
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why one character cannot be in text: null when it can. Line breaks and tabs are the caller's choice. */
function characterProblem(ch: string, lineBreaksAndTabs: boolean): string | null {
  const code = ch.codePointAt(0)!;
  if (code >= 0xd800 && code <= 0xdfff) return `contains a broken character (a lone UTF-16 surrogate, ${codePoint(ch)})`;
  if (ch === '\n' || ch === '\r' || ch === '\t') {
    if (lineBreaksAndTabs) return null;
    return ch === '\t' ? 'contains a tab' : 'must be on one line, without line breaks';
  }
  if (LINE_BREAKS.has(ch)) return lineBreaksAndTabs ? `contains a line separator (${codePoint(ch)}); break lines with a line feed` : 'must be on one line, without line breaks';
  if (/^\p{Cc}$/u.test(ch)) return `contains a control character (${codePoint(ch)})`;
  // What a decoder puts where the bytes were not UTF-8 (and what a browser's form sends for a lone surrogate).
  if (ch === '\uFFFD') return 'contains U+FFFD, the replacement character: the text was not valid UTF-8 where it came from';
  if (BIDI.test(ch)) return `contains a bidirectional control character (${codePoint(ch)}), which displays text in another order than it is stored`;
  if (INVISIBLE.test(ch) && !NEEDED_TO_RENDER.test(ch)) return `contains an invisible, private-use or non-character (${codePoint(ch)})`;
  return null;
}

function firstProblem(value: string, lineBreaksAndTabs: boolean): string | null {
  for (const ch of value) {
    const problem = characterProblem(ch, lineBreaksAndTabs);
    if (problem) return problem;
  }
  return null;
}

export const characterCount = (value: string): number => [...value].length;

/**
 * Why `value` is not a name, as the end of a sentence ("The queue ... must ..."), or null when it is one.
 * A name is stored trimmed (see trimName); `maxChars` counts the trimmed name. Beyond the characters above a name
 * has something visible, no `/` or `\` (names are path segments: conferences and campaigns are addressed by them),
 * and is not only dots (`.` and `..` mean something else in a path).
 */
export function nameProblem(value: string, maxChars: number): string | null {
  const flaw = firstProblem(value, false);
  if (flaw) return flaw;
  const name = trimName(value);
  if (!VISIBLE.test(name)) return 'must contain a visible character (a letter, digit, punctuation mark or symbol)';
  if (/[/\\]/.test(name)) return 'must not contain / or \\';
  if (/^\.+$/.test(name)) return 'must not be only dots';
  const count = characterCount(name);
  if (count > maxChars) return `must be at most ${maxChars} characters (this one has ${count})`;
  return null;
}

export const isName = (value: string, maxChars: number): boolean => nameProblem(value, maxChars) === null;

/** How a name is stored and compared: without the spaces around it. */
export const trimName = (value: string): string => value.trim();

/** Why `value` is not acceptable free text (notes): line breaks and tabs are allowed, the other characters above not. */
export function textProblem(value: string, maxChars: number): string | null {
  const flaw = firstProblem(value, true);
  if (flaw) return flaw;
  const count = characterCount(value);
  if (count > maxChars) return `must be at most ${maxChars} characters (this one has ${count})`;
  return null;
}

/**
 * Call-control markup: XML (TwiML-like) and a smaller JSON subset, parsed into a validated
 * list of verbs. Parsing only — executing verbs is the interpreter's job.
 */
import { fail, MarkupError } from './errors.js';
import { parseJson } from './json.js';
import type { MarkupFormat, Verb } from './types.js';
import { parseXml } from './xml.js';
import { BUILT_IN_ONLY, type VoiceBook } from './voices.js';

export { MarkupError, formatIssues, type MarkupIssue } from './errors.js';
export { targetUrlsOf, sipUrisOf, streamUrlsOf } from './target-urls.js';
export type * from './types.js';
export { BUILT_IN_VOICES, isBuiltInVoice, type VoiceBook } from './voices.js';
export { VOICE_NAME } from './values.js';

export interface ParseOptions {
  /** Documents larger than this many bytes (UTF-8) are refused with `too_large`. Default 64 KiB. */
  maxBytes?: number;
  /** The voices <Say> may name; default: the built-in ones only (a document read for an account passes its book). */
  voices?: VoiceBook;
}

export const DEFAULT_MAX_BYTES = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function toText(input: unknown, maxBytes: number): string {
  let text: string;
  if (typeof input === 'string') {
    const bytes = Buffer.byteLength(input, 'utf8');
    if (bytes > maxBytes) fail('too_large', `the document is ${bytes} bytes; the limit is ${maxBytes}`);
    text = input;
  } else if (input instanceof Uint8Array) {
    if (input.byteLength > maxBytes) fail('too_large', `the document is ${input.byteLength} bytes; the limit is ${maxBytes}`);
    try {
      text = utf8.decode(input);
    } catch {
      fail('invalid_encoding', 'the document is not valid UTF-8');
    }
  } else {
    fail('invalid_encoding', 'the document must be a string or a Buffer');
  }
  // A byte-order mark is invisible to authors and would otherwise shift every column on line 1.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses and validates a document; throws MarkupError (and nothing else) listing every problem found. */
export function parseMarkup(text: string | Buffer, format: MarkupFormat, opts: ParseOptions = {}): Verb[] {
  try {
    const src = toText(text, opts.maxBytes ?? DEFAULT_MAX_BYTES);
    const voices = opts.voices ?? BUILT_IN_ONLY;
    if (format === 'xml') return parseXml(src, voices);
    if (format === 'json') return parseJson(src, voices);
    return fail('invalid_format', `unknown markup format ${JSON.stringify(String(format))}; expected "xml" or "json"`);
  } catch (err) {
    if (err instanceof MarkupError) throw err;
    // A bug here must still surface as a markup failure (the caller turns it into a call error),
    // never crash the call handler with an unexpected exception type.
    const detail = err instanceof Error ? err.message : String(err);
    throw new MarkupError([{ code: 'internal_error', message: `the document could not be processed: ${detail}` }]);
  }
}

/** Guesses the format from the first non-blank character: `<` → xml, `{` or `[` → json. */
export function detectFormat(text: string): MarkupFormat {
  const first = text.replace(/^[\ufeff\s]+/, '').charAt(0);
  if (first === '<') return 'xml';
  if (first === '{' || first === '[') return 'json';
  return fail('unknown_format', 'cannot tell the markup format: a document starts with "<" (XML) or "[" (JSON)');
}

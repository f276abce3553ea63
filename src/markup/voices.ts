// Which names <Say voice> may use. The platform's own voices are offline (flite) and always there; an account adds
// the voices of its OpenAI-compatible speech endpoint (docs/speech.md, Voices). A name that is neither is a markup
// error where the document is read, not a silent prompt or another voice.

/**
 * flite's voices by their own names (slt female; rms, kal and awb male) and the names TwiML documents use for the
 * same choice. Compared without case.
 */
export const BUILT_IN_VOICES: readonly string[] = ['default', 'alice', 'woman', 'female', 'man', 'male', 'slt', 'rms', 'kal', 'awb'];

const BUILT_IN = new Set(BUILT_IN_VOICES);

export function isBuiltInVoice(name: string): boolean {
  return BUILT_IN.has(name.toLowerCase());
}

/** The voices a document may name: the built-in ones and, when read for an account, its vendor's. */
export interface VoiceBook {
  /** Vendor voice names, exactly as the endpoint takes them. */
  readonly vendor: ReadonlySet<string>;
}

export const BUILT_IN_ONLY: VoiceBook = { vendor: new Set() };

export function knowsVoice(book: VoiceBook, name: string): boolean {
  return isBuiltInVoice(name) || book.vendor.has(name);
}

/** "the built-in voices (…)" and the account's, for an error message; long vendor lists are shortened. */
export function describeVoices(book: VoiceBook): string {
  const vendor = [...book.vendor];
  const shown = vendor.slice(0, 10).join(', ') + (vendor.length > 10 ? `, … (${vendor.length} in all)` : '');
  return `the built-in voices (${BUILT_IN_VOICES.join(', ')})${vendor.length > 0 ? ` or the account's (${shown})` : ''}`;
}

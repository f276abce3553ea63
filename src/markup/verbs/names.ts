/**
 * Element names by role, kept free of imports so every verb module can classify a child
 * element without importing the registry (which imports them).
 */

export const VERB_NAMES = ['Say', 'Play', 'Pause', 'Gather', 'Redirect', 'Hangup', 'Reject', 'Record', 'Dial', 'Enqueue', 'Leave', 'Connect', 'Start', 'Stop', 'Refer'] as const;

/** Nouns that only make sense inside `<Dial>`. */
export const DIAL_NOUNS = ['Number', 'Sip', 'Client', 'Conference', 'Queue'] as const;

/** Nouns of the media stream verbs (<Connect>, <Start>, <Stop>). */
export const STREAM_NOUNS = ['Stream', 'Parameter'] as const;

const KNOWN: readonly string[] = [...VERB_NAMES, ...DIAL_NOUNS, ...STREAM_NOUNS];

export function isKnownElement(name: string): boolean {
  return KNOWN.includes(name);
}

/** TwiML is case-sensitive; a near miss like `<say>` deserves a hint rather than a bare "unknown". */
export function suggestElement(name: string): string {
  const lower = name.toLowerCase();
  const near = KNOWN.find((known) => known.toLowerCase() === lower);
  return near ? ` (did you mean <${near}>?)` : '';
}

// The ringback a caller hears while a <Dial> rings, named by country code as Twilio's ringTone is. Each engine
// plays its own rendering (the real one: src/engine/drachtio/ring-tones.ts).
export const RING_TONE_NAMES = ['us', 'ca', 'uk', 'ie', 'au', 'nz', 'de', 'at', 'ch', 'nl', 'be', 'fr', 'it', 'es', 'pt', 'se', 'no', 'dk', 'fi', 'pl', 'in', 'jp', 'br', 'mx', 'za'] as const;

export type RingTone = (typeof RING_TONE_NAMES)[number];

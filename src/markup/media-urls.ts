import type { Verb } from './types.js';

/** Every audio URL a document would have the platform fetch (<Play>, also inside <Gather>), in document order. */
export function mediaUrlsOf(verbs: readonly Verb[]): string[] {
  return verbs.flatMap((verb) => {
    if (verb.verb === 'play') return [verb.url];
    if (verb.verb === 'gather') return verb.prompts.flatMap((p) => (p.verb === 'play' ? [p.url] : []));
    return [];
  });
}

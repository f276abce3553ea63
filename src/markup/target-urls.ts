import type { Verb } from './types.js';

/** Every audio URL a document would have the platform fetch (<Play>, also inside <Gather>), in document order. */
function mediaUrlsOf(verbs: readonly Verb[]): string[] {
  return verbs.flatMap((verb) => {
    if (verb.verb === 'play') return [verb.url];
    if (verb.verb === 'gather') return verb.prompts.flatMap((p) => (p.verb === 'play' ? [p.url] : []));
    if (verb.verb === 'dial') return verb.targets.flatMap((t) => (t.type === 'conference' && t.waitUrl ? [t.waitUrl] : []));
    if (verb.verb === 'enqueue' && verb.waitUrl) return [verb.waitUrl];
    return [];
  });
}

/**
 * Every URL a document names for the platform to request: media, next documents (actions, Redirect) and
 * callbacks. Relative references are left out: they resolve against the document's own URL at run time.
 */
export function targetUrlsOf(verbs: readonly Verb[]): string[] {
  const named = verbs.flatMap((verb): Array<string | undefined> => {
    switch (verb.verb) {
      case 'redirect': return [verb.url];
      case 'gather': return [verb.action];
      // A conference's status callback; a party's screening document, a queue's document for the dequeued caller.
      case 'dial': return [verb.action, ...verb.targets.map((t) => (t.type === 'conference' ? t.statusCallback : t.url))];
      case 'record': return [verb.action, verb.recordingStatusCallback];
      case 'enqueue': return [verb.action];
      case 'connect': return [verb.action, verb.stream.statusCallback];
      case 'start': return [verb.stream.statusCallback];
      case 'refer': return [verb.action];
      default: return [];
    }
  });
  return [...mediaUrlsOf(verbs), ...named.filter((u): u is string => u !== undefined && /^[a-z][a-z0-9+.-]*:/i.test(u))];
}

/** Every SIP URI a document would have the platform dial (<Dial><Sip>) or transfer to (<Refer><Sip>). */
export function sipUrisOf(verbs: readonly Verb[]): string[] {
  return verbs.flatMap((verb) => {
    if (verb.verb === 'refer') return [verb.target];
    return verb.verb === 'dial' ? verb.targets.flatMap((t) => (t.type === 'sip' ? [t.uri] : [])) : [];
  });
}

/** Every WebSocket URL a document would have the platform connect to (<Connect>/<Start> <Stream>). */
export function streamUrlsOf(verbs: readonly Verb[]): string[] {
  return verbs.flatMap((verb) => (verb.verb === 'connect' || verb.verb === 'start' ? [verb.stream.url] : []));
}

import { EXPECT, isHttpUrl } from '../values.js';
import { leafVerb } from './define.js';
import { MAX_LOOP } from './say.js';

/** The audio URL must be absolute: the media server fetches it without knowing the document URL. */
export const play = leafVerb('Play', 'play', (f) => ({
  verb: 'play',
  url: f.content('url', { check: isHttpUrl, expect: EXPECT.httpUrl }),
  loop: f.int('loop', 0, MAX_LOOP, 1),
}));

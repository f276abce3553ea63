import { EXPECT, isUrlReference } from '../values.js';
import { leafVerb } from './define.js';

export const redirect = leafVerb('Redirect', undefined, (f) => ({
  verb: 'redirect',
  url: f.content('url', { check: isUrlReference, expect: EXPECT.urlRef }),
  method: f.method(),
}));

import { leafVerb } from './define.js';

export const pause = leafVerb('Pause', 'pause', (f) => ({
  verb: 'pause',
  length: f.int('length', 1, 600, 1),
}));

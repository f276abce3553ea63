import { leafVerb } from './define.js';

/** Not in the JSON subset: a JSON reply always connects the caller. */
export const reject = leafVerb('Reject', undefined, (f) => ({
  verb: 'reject',
  reason: f.oneOf('reason', ['rejected', 'busy'] as const, 'rejected'),
}));

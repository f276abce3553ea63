import { EXPECT, isQueueName, isUrlReference } from '../values.js';
import { compact, leafVerb } from './define.js';

const URL_REF = { check: isUrlReference, expect: EXPECT.urlRef };

/** Twilio's <Enqueue>: the caller waits in the named ACD queue until an agent takes the call (docs/acd.md). */
export const enqueue = leafVerb('Enqueue', 'enqueue', (f) => compact({
  verb: 'enqueue' as const,
  queue: f.content('queue', { check: isQueueName, expect: EXPECT.queueName }),
  waitUrl: f.string('waitUrl', URL_REF),
  action: f.string('action', URL_REF),
  method: f.method(),
  maxWait: f.optionalInt('maxWait', 10, 86_400),
}));

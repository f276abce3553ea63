import { leafVerb } from './define.js';

export const hangup = leafVerb('Hangup', 'hangup', () => ({ verb: 'hangup' }));

import { leafVerb } from './define.js';

export const leave = leafVerb('Leave', 'leave', () => ({ verb: 'leave' }));

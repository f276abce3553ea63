import type { IssueList, IssueLocation } from '../errors.js';
import type { VerbDef } from './define.js';
import { dial } from './dial.js';
import { enqueue } from './enqueue.js';
import { gather } from './gather.js';
import { hangup } from './hangup.js';
import { leave } from './leave.js';
import { pause } from './pause.js';
import { play } from './play.js';
import { record } from './record.js';
import { redirect } from './redirect.js';
import { reject } from './reject.js';
import { say } from './say.js';
import { connect, start, stop } from './stream.js';
import { refer } from './refer.js';

export const VERBS: readonly VerbDef[] = [say, play, pause, gather, redirect, hangup, leave, reject, record, dial, enqueue, connect, start, stop, refer];

/** Bounds the work an interpreter can be handed by one document (nested prompts included). */
export const MAX_VERBS = 100;

// Maps rather than object literals: a verb named "constructor" must not find Object.prototype.
const BY_XML = new Map(VERBS.map((def) => [def.xmlName, def]));
const BY_JSON = new Map<string, VerbDef>();
for (const def of VERBS) if (def.jsonName !== undefined) BY_JSON.set(def.jsonName, def);
/** "connect" reads better for what a JSON reply does; it is the same verb as "dial". */
BY_JSON.set('connect', dial);

/** XML verbs deliberately left out of the JSON subset, by their JSON-style name. */
export const XML_ONLY = new Set(VERBS.filter((def) => def.jsonName === undefined).map((def) => def.xmlName.toLowerCase()));
export const JSON_NAMES = [...BY_JSON.keys()];

export function xmlVerb(name: string): VerbDef | undefined {
  return BY_XML.get(name);
}

export function jsonVerb(name: string): VerbDef | undefined {
  return BY_JSON.get(name);
}

export function verbCounter(issues: IssueList): (where: IssueLocation) => void {
  let count = 0;
  return (where) => {
    if (++count === MAX_VERBS + 1) issues.add('too_many_verbs', `a document may contain at most ${MAX_VERBS} verbs`, where);
  };
}

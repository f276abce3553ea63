import type { XmlElement } from '../element.js';
import type { IssueList, IssueLocation } from '../errors.js';
import { type Fields, isPlainObject, jsonFields, jsonPath, show, xmlFields } from '../fields.js';
import type { DialTarget, DialVerb } from '../types.js';
import { EXPECT, isE164, isUrlReference } from '../values.js';
import { compact, readXmlLeaf, refuseChild, type VerbDef } from './define.js';
import { MAX_TARGETS, TARGET_KINDS } from './targets.js';
import { RING_TONE_NAMES } from '../ring-tones.js';

/** Twilio's longest (and default) timeLimit: four hours. */
const MAX_TIME_LIMIT_SECONDS = 14_400;
const BY_XML = new Map(TARGET_KINDS.map((kind) => [kind.xmlName, kind]));
const BY_TYPE = new Map<unknown, (typeof TARGET_KINDS)[number]>(TARGET_KINDS.map((kind) => [kind.type, kind]));
const TYPE_NAMES = TARGET_KINDS.map((kind) => `"${kind.type}"`).join(', ');

function withAttributes(f: Fields, targets: DialTarget[], where: IssueLocation): DialVerb {
  const verb = compact({
    verb: 'dial' as const,
    callerId: f.string('callerId', { check: isE164, expect: EXPECT.e164 }),
    timeout: f.int('timeout', 5, 600, 30),
    action: f.string('action', { check: isUrlReference, expect: EXPECT.urlRef }),
    method: f.method(),
    record: f.oneOf('record', ['do-not-record', 'record-from-answer', 'record-from-ringing'] as const, 'do-not-record'),
    timeLimit: f.optionalInt('timeLimit', 1, MAX_TIME_LIMIT_SECONDS),
    ringTone: f.oneOf('ringTone', RING_TONE_NAMES, 'us'),
    hangupOnStar: f.bool('hangupOnStar', false),
    answerOnBridge: f.bool('answerOnBridge', false),
    targets,
  });
  // A conference member stays until it leaves or the conference ends, a dequeuer until it or the caller leaves:
  // there is no bridge for a limit to end, nor a party whose answer would answer the caller.
  const room = targets.find((t) => t.type === 'conference' || t.type === 'queue')?.type;
  if (verb.timeLimit !== undefined && room) f.issues.add('invalid_attribute', `timeLimit applies to a dialled party, not to a ${room}`, where);
  if (verb.answerOnBridge && room) f.issues.add('invalid_attribute', `answerOnBridge applies to a dialled party, not to a ${room}`, where);
  return verb;
}

function checkTargetCount(count: number, issues: IssueList, where: IssueLocation): void {
  if (count > MAX_TARGETS) issues.add('too_many_targets', `a dial may ring at most ${MAX_TARGETS} targets at once, got ${count}`, where);
}

/** As in TwiML: a conference is joined and a queue dequeued, not raced against other targets. */
function checkConferenceAlone(targets: DialTarget[], issues: IssueList, where: IssueLocation): void {
  const room = targets.find((t) => t.type === 'conference' || t.type === 'queue')?.type;
  if (targets.length > 1 && room) issues.add('invalid_nesting', `a ${room} must be the only target of its dial`, where);
}

function targetsFromXml(el: XmlElement, f: Fields, issues: IssueList): DialTarget[] {
  // TwiML shorthand: `<Dial>+15551234567</Dial>` is a single number.
  if (el.children.length === 0) {
    if (el.text.trim() !== '') return [{ type: 'number', number: f.content('number', { check: isE164, expect: EXPECT.e164 }) }];
    issues.add('missing_target', '<Dial> needs a number as text or at least one <Number>, <Sip>, <Client>, <Conference> or <Queue>', el.pos ?? {});
    return [];
  }
  const targets: DialTarget[] = [];
  for (const child of el.children) {
    const kind = BY_XML.get(child.name);
    if (kind) targets.push(readXmlLeaf(child, issues, kind.read));
    else refuseChild(el, child, issues, 'may only contain <Number>, <Sip>, <Client>, <Conference> and <Queue>');
  }
  checkTargetCount(targets.length, issues, el.pos ?? {});
  checkConferenceAlone(targets, issues, el.pos ?? {});
  return targets;
}

function targetsFromJson(f: Fields, path: string): DialTarget[] {
  const issues = f.issues;
  const list = f.take('targets');
  const shortcuts = TARGET_KINDS.filter((kind) => f.has(kind.type));
  const given = shortcuts.length + (list === undefined ? 0 : 1);
  const choices = `"targets" or one of ${TYPE_NAMES}`;
  if (given === 0) issues.add('missing_target', `dial needs ${choices}`, { path });
  if (given > 1) issues.add('invalid_attribute', `dial takes exactly one of ${choices}`, { path });

  const targets: DialTarget[] = [];
  for (const kind of shortcuts) {
    const value = f.string(kind.type, kind);
    if (value !== undefined) targets.push(kind.fromValue(value));
  }
  if (list === undefined) return targets;
  const listPath = jsonPath(path, 'targets');
  if (!Array.isArray(list)) {
    f.invalid('targets', 'an array of targets', list);
    return targets;
  }
  if (list.length === 0) issues.add('missing_target', 'dial "targets" must not be empty', { path: listPath });
  checkTargetCount(list.length, issues, { path: listPath });
  list.slice(0, MAX_TARGETS).forEach((item: unknown, i) => {
    const itemPath = jsonPath(listPath, i);
    if (!isPlainObject(item)) {
      issues.add('invalid_attribute', `a dial target must be an object, got ${show(item)}`, { path: itemPath });
      return;
    }
    const kind = BY_TYPE.get(item.type);
    if (!kind) {
      const where = { path: jsonPath(itemPath, 'type') };
      if (item.type === undefined) issues.add('missing_attribute', `a dial target requires field "type" (one of ${TYPE_NAMES})`, { path: itemPath });
      else issues.add('invalid_attribute', `dial target field "type" must be one of ${TYPE_NAMES}, got ${show(item.type)}`, where);
      return;
    }
    const tf = jsonFields(item, itemPath, `${kind.type} target`, issues, 'type');
    targets.push(kind.read(tf));
    tf.finish();
  });
  checkConferenceAlone(targets, issues, { path: listPath });
  return targets;
}

export const dial: VerbDef = {
  xmlName: 'Dial',
  jsonName: 'dial',
  fromXml(el, cx) {
    const f = xmlFields(el, cx.issues);
    const verb = withAttributes(f, targetsFromXml(el, f, cx.issues), el.pos ?? {});
    f.finish();
    return verb;
  },
  fromJson(f, _cx, path) {
    const verb = withAttributes(f, targetsFromJson(f, path), { path });
    f.finish();
    return verb;
  },
};

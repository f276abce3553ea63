import type { IssueList, IssueLocation } from '../errors.js';
import type { XmlElement } from '../element.js';
import { Fields, xmlFields } from '../fields.js';
import type { Verb } from '../types.js';
import { isKnownElement, suggestElement } from './names.js';
import type { VoiceBook } from '../voices.js';

export interface ReadContext {
  issues: IssueList;
  /** Called once per verb (nested prompts included) so the document-wide cap is enforced in one place. */
  countVerb(where: IssueLocation): void;
  /** The voices <Say> may name. */
  voices: VoiceBook;
}

export interface VerbDef {
  xmlName: string;
  /** Present only for verbs in the JSON subset. */
  jsonName?: string;
  fromXml(el: XmlElement, cx: ReadContext): Verb;
  /** `f` excludes the "verb" discriminator; `path` is the verb's JSON path for nested issues. */
  fromJson?(f: Fields, cx: ReadContext, path: string): Verb;
}

/** A verb whose whole shape is attributes plus (optionally) a text body, read the same way in both dialects. */
export function leafVerb<V extends Verb>(xmlName: string, jsonName: string | undefined, read: (f: Fields, cx: ReadContext) => V): VerbDef {
  const def: VerbDef = {
    xmlName,
    fromXml: (el, cx) => readXmlLeaf(el, cx.issues, (f) => read(f, cx)),
  };
  if (jsonName !== undefined) {
    def.jsonName = jsonName;
    def.fromJson = (f, cx) => {
      const verb = read(f, cx);
      f.finish();
      return verb;
    };
  }
  return def;
}

/** Reads an element that has attributes and perhaps a text body, but no child elements. */
export function readXmlLeaf<T>(el: XmlElement, issues: IssueList, read: (f: Fields) => T): T {
  const f = xmlFields(el, issues);
  for (const child of el.children) refuseChild(el, child, issues, 'cannot contain elements');
  const value = read(f);
  f.finish();
  return value;
}

/** Picks the right code for a child element that its parent does not accept. */
export function refuseChild(parent: XmlElement, child: XmlElement, issues: IssueList, rule: string): void {
  const where = child.pos ?? {};
  if (isKnownElement(child.name)) {
    issues.add('invalid_nesting', `<${parent.name}> ${rule}, got <${child.name}>`, where);
  } else {
    issues.add('unknown_verb', `unknown element <${child.name}>${suggestElement(child.name)}`, where);
  }
}

/** Drops optional properties that were not given, so parsed verbs compare and serialise cleanly. */
export function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}

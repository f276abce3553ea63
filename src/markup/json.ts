import { fail, IssueList } from './errors.js';
import { isPlainObject, jsonFields, jsonPath, show } from './fields.js';
import { findJsonSyntaxError } from './json-syntax.js';
import { LineIndex } from './position.js';
import type { Verb } from './types.js';
import type { VoiceBook } from './voices.js';
import { JSON_NAMES, jsonVerb, MAX_VERBS, verbCounter, XML_ONLY } from './verbs/registry.js';

function parseText(src: string): unknown {
  try {
    return JSON.parse(src);
  } catch (err) {
    const found = findJsonSyntaxError(src);
    if (!found) fail('malformed_json', err instanceof Error ? err.message : 'invalid JSON');
    fail('malformed_json', `invalid JSON: ${found.message}`, new LineIndex(src).at(found.offset));
  }
}

function refuseName(name: string, issues: IssueList, path: string): void {
  if (XML_ONLY.has(name)) {
    issues.add('not_supported_in_json', `"${name}" is only available in XML markup; a JSON reply just connects the caller`, { path });
  } else {
    const near = JSON_NAMES.find((known) => known === name.toLowerCase());
    const hint = near ? ` (did you mean "${near}"?)` : '';
    issues.add('unknown_verb', `unknown verb ${show(name)}${hint}; JSON markup supports ${JSON_NAMES.map((n) => `"${n}"`).join(', ')}`, { path });
  }
}

/** The JSON subset is an array of verb objects: `[{"verb":"say","text":"Hi"}, {"verb":"dial","number":"+1…"}]`. */
export function parseJson(src: string, voices: VoiceBook): Verb[] {
  const doc = parseText(src);
  if (!Array.isArray(doc)) fail('invalid_root', `a JSON document must be an array of verb objects, got ${show(doc)}`, { path: '$' });

  const issues = new IssueList();
  const cx = { issues, countVerb: verbCounter(issues), voices };
  const verbs: Verb[] = [];
  // Items past the cap are not even looked at: the document is refused anyway.
  doc.slice(0, MAX_VERBS + 1).forEach((item: unknown, i) => {
    const path = jsonPath('$', i);
    cx.countVerb({ path });
    if (!isPlainObject(item)) {
      issues.add('invalid_verb', `each verb must be an object with a "verb" field, got ${show(item)}`, { path });
      return;
    }
    const name = item.verb;
    if (name === undefined) {
      issues.add('missing_attribute', 'a verb object requires field "verb"', { path });
      return;
    }
    if (typeof name !== 'string') {
      issues.add('invalid_attribute', `field "verb" must be a string, got ${show(name)}`, { path: jsonPath(path, 'verb') });
      return;
    }
    const def = jsonVerb(name);
    if (def?.fromJson) verbs.push(def.fromJson(jsonFields(item, path, name, issues, 'verb'), cx, path));
    else refuseName(name, issues, path);
  });
  issues.check();
  return verbs;
}

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { XmlElement } from './element.js';
import { fail, IssueList } from './errors.js';
import { xmlFields } from './fields.js';
import { LineIndex } from './position.js';
import type { Verb } from './types.js';
import type { VoiceBook } from './voices.js';
import { type StartTag, scanXml } from './xml-scan.js';
import type { ReadContext } from './verbs/define.js';
import { DIAL_NOUNS, STREAM_NOUNS, suggestElement } from './verbs/names.js';
import { xmlVerb, verbCounter } from './verbs/registry.js';

/**
 * Names are prefixed on the way in because the parser throws on element or attribute names such
 * as "constructor"; `@` cannot start an XML name, so stripping every leading `@` is lossless
 * (the parser sometimes applies the transform twice to self-closing tags).
 */
const NAME_MARK = '@';
const unmark = (name: string): string => name.replace(/^@+/, '');

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // Entities stay as written; scanXml has already refused everything but the predefined and
  // numeric references, which decode() expands itself.
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Separate CDATA nodes so their content is not entity-decoded.
  cdataPropName: '#cdata',
  commentPropName: false,
  transformTagName: (name) => NAME_MARK + name,
  transformAttributeName: (name) => NAME_MARK + name,
});

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(raw: string): string {
  return raw.replace(/&(?:#x([0-9A-Fa-f]{1,8})|#([0-9]{1,10})|(lt|gt|amp|quot|apos));/g, (whole, hex?: string, dec?: string, name?: string) => {
    if (name !== undefined) return NAMED[name] ?? whole;
    const cp = hex !== undefined ? parseInt(hex, 16) : Number(dec);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
  });
}

/** Pairs parse-tree elements with scanned start tags; both are in document order. */
class TagCursor {
  private next = 0;
  private aligned = true;
  constructor(
    private readonly tags: StartTag[],
    private readonly lines: LineIndex,
  ) {}

  claim(el: XmlElement): void {
    const tag = this.tags[this.next++];
    // A mismatch means the two views disagree; no position beats a wrong one.
    if (!this.aligned || !tag || tag.name !== el.name) {
      this.aligned = false;
      return;
    }
    el.pos = this.lines.at(tag.offset);
    for (const [name, offset] of tag.attrs) el.attrPos.set(name, this.lines.at(offset));
  }
}

function toElements(nodes: unknown, cursor: TagCursor, parent?: XmlElement): XmlElement[] {
  const out: XmlElement[] = [];
  if (!Array.isArray(nodes)) return out;
  for (const node of nodes as Record<string, unknown>[]) {
    const key = Object.keys(node).find((k) => k !== ':@');
    if (key === undefined) continue;
    const value = node[key];
    if (key === '#text') {
      if (parent) parent.text += decode(String(value));
    } else if (key === '#cdata') {
      if (parent && Array.isArray(value)) for (const part of value as Record<string, unknown>[]) parent.text += String(part['#text'] ?? '');
    } else {
      const el: XmlElement = { name: unmark(key), attrs: new Map(), text: '', children: [], attrPos: new Map() };
      const attrs = node[':@'];
      if (attrs && typeof attrs === 'object') {
        for (const [name, raw] of Object.entries(attrs)) el.attrs.set(unmark(name), decode(String(raw)));
      }
      cursor.claim(el);
      el.children = toElements(value, cursor, el);
      out.push(el);
    }
  }
  return out;
}

function readVerbs(root: XmlElement, cx: ReadContext): Verb[] {
  const verbs: Verb[] = [];
  for (const child of root.children) {
    const where = child.pos ?? {};
    const def = xmlVerb(child.name);
    if (def) {
      cx.countVerb(where);
      verbs.push(def.fromXml(child, cx));
    } else if ((DIAL_NOUNS as readonly string[]).includes(child.name)) {
      cx.issues.add('invalid_nesting', `<${child.name}> is only allowed inside <Dial>`, where);
    } else if ((STREAM_NOUNS as readonly string[]).includes(child.name)) {
      cx.issues.add('invalid_nesting', `<${child.name}> is only allowed inside <Connect>, <Start> or <Stop>`, where);
    } else {
      cx.issues.add('unknown_verb', `unknown verb <${child.name}>${suggestElement(child.name)}`, where);
    }
  }
  return verbs;
}

export function parseXml(src: string, voices: VoiceBook): Verb[] {
  const lines = new LineIndex(src);
  const issues = new IssueList();
  const tags = scanXml(src, issues, lines);
  issues.check();

  const valid = XMLValidator.validate(src, { allowBooleanAttributes: false });
  if (valid !== true) fail('malformed_xml', valid.err.msg, { line: valid.err.line, column: valid.err.col });

  let tree: unknown;
  try {
    tree = parser.parse(src);
  } catch (err) {
    fail('malformed_xml', err instanceof Error ? err.message : 'the XML could not be parsed');
  }
  const roots = toElements(tree, new TagCursor(tags, lines));
  const [root, extra] = roots;
  if (!root) fail('malformed_xml', 'the document has no root element', { line: 1, column: 1 });
  if (extra) fail('malformed_xml', `only one root element is allowed, found a second one <${extra.name}>`, extra.pos);
  if (root.name !== 'Response') fail('invalid_root', `the root element must be <Response>, got <${root.name}>`, root.pos);

  xmlFields(root, issues).finish();
  const verbs = readVerbs(root, { issues, countVerb: verbCounter(issues), voices });
  issues.check();
  return verbs;
}

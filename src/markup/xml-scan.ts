/**
 * A pre-pass over the raw XML text, run before fast-xml-parser sees it. It has two jobs:
 *  - refuse DOCTYPE, entity declarations and non-predefined entity references without ever
 *    expanding anything (billion-laughs / external-entity attacks die here);
 *  - record where every start tag and attribute is, in document order, so issues found on the
 *    parse tree can carry a line and column (the parser itself does not report positions).
 * It is deliberately forgiving about malformed input: the validator reports that precisely.
 */
import type { IssueList } from './errors.js';
import type { LineIndex } from './position.js';

export interface StartTag {
  name: string;
  offset: number;
  /** Attribute name → offset of the name. */
  attrs: Map<string, number>;
}

/** Response > Dial > Number is three levels; anything much deeper is a mistake or an attack. */
export const MAX_DEPTH = 12;

const PREDEFINED = new Set(['lt', 'gt', 'amp', 'quot', 'apos']);
const REFERENCE = /&(?:#x([0-9A-Fa-f]{1,8})|#([0-9]{1,10})|([A-Za-z_:][-A-Za-z0-9_.:]*));/y;
const WHITESPACE = /[ \t\r\n]*/y;
const TAG_NAME = /[^\s/>]*/y;
const ATTR_NAME = /[^\s=/>]+/y;

function isXmlChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

export function scanXml(src: string, issues: IssueList, lines: LineIndex): StartTag[] {
  const tags: StartTag[] = [];
  let depth = 0;
  let i = 0;

  // A failed sticky match resets lastIndex to 0, which would send the scan backwards.
  const skip = (re: RegExp, from: number): number => {
    re.lastIndex = from;
    return re.exec(src) ? re.lastIndex : from;
  };

  const checkReferences = (from: number, to: number): void => {
    for (let amp = src.indexOf('&', from); amp !== -1 && amp < to; amp = src.indexOf('&', amp + 1)) {
      REFERENCE.lastIndex = amp;
      const m = REFERENCE.exec(src);
      const where = lines.at(amp);
      if (!m || REFERENCE.lastIndex > to) {
        issues.add('malformed_xml', 'a bare "&" must be written as "&amp;"', where);
      } else if (m[3] !== undefined) {
        if (!PREDEFINED.has(m[3])) issues.add('entity_forbidden', `entity reference "&${m[3]};" is not allowed; only &lt; &gt; &amp; &quot; &apos; and numeric references are`, where);
      } else if (!isXmlChar(m[1] !== undefined ? parseInt(m[1], 16) : Number(m[2]))) {
        issues.add('malformed_xml', `"${m[0]}" does not refer to a valid XML character`, where);
      }
    }
  };

  while (i < src.length) {
    const lt = src.indexOf('<', i);
    checkReferences(i, lt === -1 ? src.length : lt);
    if (lt === -1) break;

    // The validator lets some unterminated constructs through after the root element (the
    // parser then fails without a position), so they are caught here.
    const skipPast = (terminator: string, from: number, what: string): number => {
      const end = src.indexOf(terminator, from);
      if (end !== -1) return end + terminator.length;
      issues.add('malformed_xml', `${what} is not closed with "${terminator}"`, lines.at(lt));
      return src.length;
    };
    if (src.startsWith('<!--', lt)) {
      i = skipPast('-->', lt + 4, 'a comment');
    } else if (src.startsWith('<![CDATA[', lt)) {
      i = skipPast(']]>', lt + 9, 'a CDATA section');
    } else if (src.startsWith('<!', lt)) {
      const keyword = /^<!([A-Za-z]*)/.exec(src.slice(lt, lt + 12))?.[1]?.toUpperCase();
      if (keyword === 'DOCTYPE') {
        issues.add('doctype_forbidden', 'a DOCTYPE is not allowed in call-control markup', lines.at(lt));
        const entity = src.indexOf('<!ENTITY', lt);
        if (entity !== -1) issues.add('entity_forbidden', 'entity declarations are not allowed', lines.at(entity));
        return tags;
      }
      if (keyword === 'ENTITY') {
        issues.add('entity_forbidden', 'entity declarations are not allowed', lines.at(lt));
        return tags;
      }
      issues.add('malformed_xml', '"<!" must start a comment or a CDATA section', lines.at(lt));
      i = lt + 2;
    } else if (src.startsWith('<?', lt)) {
      i = skipPast('?>', lt + 2, 'a processing instruction');
    } else if (src[lt + 1] === '/') {
      depth--;
      i = skipPast('>', lt + 2, 'an end tag');
    } else {
      const nameEnd = skip(TAG_NAME, lt + 1);
      const tag: StartTag = { name: src.slice(lt + 1, nameEnd), offset: lt, attrs: new Map() };
      tags.push(tag);
      let j = nameEnd;
      let selfClosing = false;
      while (j < src.length) {
        j = skip(WHITESPACE, j);
        if (src[j] === '>') {
          j++;
          break;
        }
        if (src.startsWith('/>', j)) {
          selfClosing = true;
          j += 2;
          break;
        }
        const attrEnd = skip(ATTR_NAME, j);
        if (attrEnd === j) {
          j++;
          continue;
        }
        const attr = src.slice(j, attrEnd);
        if (!tag.attrs.has(attr)) tag.attrs.set(attr, j);
        j = skip(WHITESPACE, attrEnd);
        if (src[j] !== '=') continue;
        j = skip(WHITESPACE, j + 1);
        const quote = src[j];
        if (quote === '"' || quote === "'") {
          const close = src.indexOf(quote, j + 1);
          const end = close === -1 ? src.length : close;
          checkReferences(j + 1, end);
          j = end + 1;
        }
      }
      if (!selfClosing && ++depth > MAX_DEPTH) {
        issues.add('too_deep', `elements are nested more than ${MAX_DEPTH} levels deep`, lines.at(lt));
        return tags;
      }
      i = j;
    }
  }
  return tags;
}

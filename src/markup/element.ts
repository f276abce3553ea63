/** The XML tree as the verb readers see it: decoded, positioned, and free of parser quirks. */
import type { Position } from './position.js';

export interface XmlElement {
  name: string;
  attrs: Map<string, string>;
  /** Concatenated, decoded text of the direct text children; used for bodies such as `<Say>Hi</Say>`. */
  text: string;
  children: XmlElement[];
  /** Absent only if the position index could not be matched to the parse tree. */
  pos?: Position;
  attrPos: Map<string, Position>;
}

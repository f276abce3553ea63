/**
 * Finds where a JSON text stops being valid. JSON.parse's messages only sometimes carry a
 * position, so on failure this small iterative checker (no recursion: nesting depth is
 * irrelevant to it) pinpoints the offset for a line/column.
 */

export interface JsonSyntaxError {
  offset: number;
  message: string;
}

const WHITESPACE = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9A-Fa-f]{4})/y;

function describe(ch: string | undefined): string {
  return ch === undefined ? 'end of input' : JSON.stringify(ch);
}

/** Returns the end offset of the string starting at `at`, or an error. */
function scanString(src: string, at: number): number | JsonSyntaxError {
  let i = at + 1;
  while (i < src.length) {
    const code = src.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) return { offset: i, message: 'control characters must be escaped inside strings' };
    if (code === 0x5c) {
      ESCAPE.lastIndex = i;
      if (!ESCAPE.test(src)) return { offset: i, message: 'invalid escape sequence' };
      i = ESCAPE.lastIndex;
    } else {
      i++;
    }
  }
  return { offset: i, message: 'unterminated string' };
}

function scanToken(src: string, at: number, re: RegExp): number | undefined {
  re.lastIndex = at;
  return re.test(src) ? re.lastIndex : undefined;
}

export function findJsonSyntaxError(src: string): JsonSyntaxError | undefined {
  const stack: string[] = [];
  let state: 'value' | 'key' | 'after' = 'value';
  let i = 0;
  for (;;) {
    i = scanToken(src, i, WHITESPACE) ?? i;
    const ch = src[i];
    if (state === 'value') {
      if (ch === '[' || ch === '{') {
        stack.push(ch === '[' ? ']' : '}');
        i = scanToken(src, i + 1, WHITESPACE) ?? i + 1;
        if (src[i] === stack[stack.length - 1]) {
          stack.pop();
          i++;
          state = 'after';
        } else {
          state = ch === '[' ? 'value' : 'key';
        }
        continue;
      }
      const end = ch === '"' ? scanString(src, i) : scanToken(src, i, NUMBER) ?? scanToken(src, i, LITERAL);
      if (typeof end === 'object') return end;
      if (end === undefined) return { offset: i, message: `unexpected ${describe(ch)}, expected a value` };
      i = end;
      state = 'after';
    } else if (state === 'key') {
      if (ch !== '"') return { offset: i, message: `unexpected ${describe(ch)}, expected a property name in double quotes` };
      const end = scanString(src, i);
      if (typeof end === 'object') return end;
      i = scanToken(src, end, WHITESPACE) ?? end;
      if (src[i] !== ':') return { offset: i, message: `unexpected ${describe(src[i])}, expected ":"` };
      i++;
      state = 'value';
    } else {
      const close = stack[stack.length - 1];
      if (close === undefined) return i === src.length ? undefined : { offset: i, message: `unexpected ${describe(ch)} after the end of the document` };
      if (ch === ',') {
        i++;
        state = close === ']' ? 'value' : 'key';
      } else if (ch === close) {
        stack.pop();
        i++;
      } else {
        return { offset: i, message: `unexpected ${describe(ch)}, expected "," or "${close}"` };
      }
    }
  }
}

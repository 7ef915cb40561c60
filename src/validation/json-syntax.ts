/**
 * Where a text stops being JSON (RFC 8259 section 2), found by the grammar rather than read off a
 * parser's message: every JavaScript engine words and places `JSON.parse`'s errors its own way, and
 * an error document must read the same on Node, Bun, Deno and workerd.
 */

/** What the scanner expects next. */
const VALUE = 0;
const KEY = 1;
const AFTER = 2;

const OBJECT = 1;
const ARRAY = 2;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function skipSpace(text: string, at: number): number {
  let i = at;
  for (
    let c = text.charCodeAt(i);
    c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
    c = text.charCodeAt(i)
  )
    i++;
  return i;
}

const ESCAPES = '"\\/bfnrt';

/** The end of the string starting at `at` (a `"`), or `-1 - offset` of its first error (section 7). */
function stringEnd(text: string, at: number): number {
  let i = at + 1;
  for (;;) {
    if (i >= text.length) return -1 - i;
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return -1 - i;
    if (c !== 0x5c) {
      i++;
      continue;
    }
    const escaped = text[i + 1];
    if (escaped === undefined) return -1 - (i + 1);
    if (escaped === 'u') {
      for (let k = 2; k < 6; k++)
        if (!isHex(text.charCodeAt(i + k))) return -1 - Math.min(i + k, text.length);
      i += 6;
    } else if (ESCAPES.includes(escaped)) i += 2;
    else return -1 - (i + 1);
  }
}

/** The end of the number starting at `at`, or `-1 - offset` of its first error (section 6). */
function numberEnd(text: string, at: number): number {
  let i = at;
  if (text.charCodeAt(i) === 0x2d) i++;
  if (text.charCodeAt(i) === 0x30) i++;
  else if (isDigit(text.charCodeAt(i))) while (isDigit(text.charCodeAt(i))) i++;
  else return -1 - i;
  if (text.charCodeAt(i) === 0x2e) {
    i++;
    if (!isDigit(text.charCodeAt(i))) return -1 - i;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  if (text.charCodeAt(i) === 0x65 || text.charCodeAt(i) === 0x45) {
    i++;
    if (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d) i++;
    if (!isDigit(text.charCodeAt(i))) return -1 - i;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

/** The end of `literal` at `at`, or `-1 - offset` of the first character that differs (section 3). */
function literalEnd(text: string, at: number, literal: string): number {
  for (let k = 0; k < literal.length; k++) if (text[at + k] !== literal[k]) return -1 - (at + k);
  return at + literal.length;
}

/** The end of the scalar value at `at`, or `-1 - offset` of its first error. */
function scalarEnd(text: string, at: number): number {
  const c = text[at];
  if (c === '"') return stringEnd(text, at);
  if (c === 't') return literalEnd(text, at, 'true');
  if (c === 'f') return literalEnd(text, at, 'false');
  if (c === 'n') return literalEnd(text, at, 'null');
  return numberEnd(text, at);
}

/**
 * `-1` when `text` is one JSON text; otherwise the length of its longest prefix that some JSON text
 * starts with: the UTF-16 offset of the first character that cannot belong there, or
 * `text.length` when the text ends too soon. Iterative, so nesting depth costs no stack.
 *
 * @example jsonSyntaxErrorAt('{"a":tru}') // 8
 */
export function jsonSyntaxErrorAt(text: string): number {
  const open: number[] = [];
  let expect: number = VALUE;
  let i = skipSpace(text, 0);
  for (;;) {
    if (expect === VALUE) {
      const c = text[i];
      if (c === '{' || c === '[') {
        i = skipSpace(text, i + 1);
        if (text[i] === (c === '{' ? '}' : ']')) {
          i++;
          expect = AFTER;
        } else {
          open.push(c === '{' ? OBJECT : ARRAY);
          expect = c === '{' ? KEY : VALUE;
        }
        continue;
      }
      const end = scalarEnd(text, i);
      if (end < 0) return -1 - end;
      i = end;
      expect = AFTER;
    } else if (expect === KEY) {
      if (text[i] !== '"') return i;
      const end = stringEnd(text, i);
      if (end < 0) return -1 - end;
      i = skipSpace(text, end);
      if (text[i] !== ':') return i;
      i = skipSpace(text, i + 1);
      expect = VALUE;
    } else {
      i = skipSpace(text, i);
      const container = open[open.length - 1];
      if (container === undefined) return i === text.length ? -1 : i;
      const c = text[i];
      if (c === ',') {
        i = skipSpace(text, i + 1);
        expect = container === OBJECT ? KEY : VALUE;
      } else if (c === (container === OBJECT ? '}' : ']')) {
        open.pop();
        i++;
      } else return i;
    }
  }
}

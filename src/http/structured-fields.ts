/**
 * Structured Field Lists of items with parameters (RFC 9651 section 3.1), read as a recipient reads
 * them: the `RateLimit` and `RateLimit-Policy` fields (draft-ietf-httpapi-ratelimit-headers) are such
 * lists. Inner lists are not read.
 */

/** An item's parameters by key (RFC 9651 section 3.1.2). */
export type Parameters = Record<string, string | number | boolean>;

const KEY = /^[a-z*][a-z0-9_\-.*]*/;
const TOKEN = /^[A-Za-z*][!#$%&'*+.^_`|~0-9A-Za-z:/-]*/;
const INTEGER = /^-?\d{1,15}(?!\.)/;
const DECIMAL = /^-?\d{1,12}\.\d{1,3}/;
const BYTES = /^:[A-Za-z0-9+/=]*:/;

/** Whether `text` is written as a Token in a Structured Field (RFC 9651 section 3.3.4). */
export function isToken(text: string): boolean {
  return TOKEN.exec(text)?.[0].length === text.length;
}

/** A bare item at the start of `text` (RFC 9651 section 4.2.3.1) and what is left, or `undefined`. */
function bareItem(text: string): [string | number | boolean, string] | undefined {
  if (text.startsWith('"')) {
    let value = '';
    for (let i = 1; i < text.length; i++) {
      const c = text[i]!;
      if (c === '\\') {
        const next = text[++i];
        if (next !== '"' && next !== '\\') return undefined;
        value += next;
      } else if (c === '"') return [value, text.slice(i + 1)];
      else if (c < ' ' || c > '~') return undefined;
      else value += c;
    }
    return undefined;
  }
  if (text.startsWith('?1') || text.startsWith('?0')) return [text[1] === '1', text.slice(2)];
  for (const [pattern, read] of [
    [DECIMAL, Number],
    [INTEGER, Number],
    [BYTES, String],
    [TOKEN, String],
  ] as const) {
    const found = pattern.exec(text)?.[0];
    if (found !== undefined) return [read(found), text.slice(found.length)];
  }
  return undefined;
}

/** A Structured Field List of items with parameters, or `undefined` when it is not one (no inner lists). */
export function parseItemList(field: string): [string | number | boolean, Parameters][] | undefined {
  const items: [string | number | boolean, Parameters][] = [];
  let rest = field.trim();
  while (rest !== '') {
    const item = bareItem(rest);
    if (item === undefined) return undefined;
    let [value, after] = item;
    const parameters: Parameters = {};
    while (after.startsWith(';')) {
      after = after.slice(1).replace(/^ +/, '');
      const key = KEY.exec(after)?.[0];
      if (key === undefined) return undefined;
      after = after.slice(key.length);
      if (after.startsWith('=')) {
        const parameter = bareItem(after.slice(1));
        if (parameter === undefined) return undefined;
        [parameters[key], after] = parameter;
      } else parameters[key] = true;
    }
    items.push([value, parameters]);
    rest = after.replace(/^[ \t]+/, '');
    if (rest === '') break;
    if (!rest.startsWith(',')) return undefined;
    rest = rest.slice(1).replace(/^[ \t]+/, '');
    if (rest === '') return undefined;
  }
  return items;
}

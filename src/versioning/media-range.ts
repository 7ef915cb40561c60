/**
 * One element of an `Accept` header (RFC 9110 section 12.5.1): a media range, its parameters and its
 * weight.
 */
import { HTTP_TOKEN } from '../core/field-syntax.js';
export interface MediaRange {
  /** Lower-cased type, `*` for a wildcard. */
  readonly type: string;
  /** Lower-cased subtype, `*` for a wildcard. */
  readonly subtype: string;
  /** Parameters other than `q`, names lower-cased (RFC 9110 section 5.6.6), quoted values unescaped. */
  readonly params: ReadonlyMap<string, string>;
  /** The weight (RFC 9110 section 12.4.2), 1 when absent; 0 means "not acceptable". */
  readonly q: number;
}

const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Parse an `Accept` field value into media ranges, in header order.
 *
 * Commas and semicolons inside quoted strings are respected, parameter names are case-insensitive,
 * and whitespace around `,`, `;` and `=` is ignored. Elements that are not a media range (no `/`,
 * a non-token type, a malformed weight) are skipped, as a lenient recipient may (RFC 9110 section 5.6.1).
 *
 * @example
 * parseAccept('application/json; Version="2"; q=0.5, text/*;q=0.1');
 * // [{ type: 'application', subtype: 'json', params: Map { 'version' => '2' }, q: 0.5 }, ...]
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-12.5.1
 */
export function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const element of splitOutsideQuotes(accept, ',')) {
    const range = parseElement(element);
    if (range !== undefined) ranges.push(range);
  }
  return ranges;
}

function parseElement(element: string): MediaRange | undefined {
  const [mediaType = '', ...rawParams] = splitOutsideQuotes(element, ';');
  const slash = mediaType.indexOf('/');
  if (slash === -1) return undefined;
  const type = mediaType.slice(0, slash).trim().toLowerCase();
  const subtype = mediaType
    .slice(slash + 1)
    .trim()
    .toLowerCase();
  if (!HTTP_TOKEN.test(type) || !HTTP_TOKEN.test(subtype) || (type === '*' && subtype !== '*'))
    return undefined;
  const params = new Map<string, string>();
  let q = 1;
  for (const raw of rawParams) {
    if (raw.trim() === '') continue; // `;;` is allowed: the parameter is optional in the grammar
    const equals = raw.indexOf('=');
    if (equals === -1) return undefined;
    const name = raw.slice(0, equals).trim().toLowerCase();
    const value = unquote(raw.slice(equals + 1).trim());
    if (!HTTP_TOKEN.test(name) || value === undefined) return undefined;
    if (name === 'q') {
      if (!QVALUE.test(value)) return undefined;
      q = Number(value);
    } else if (!params.has(name)) {
      params.set(name, value);
    }
  }
  return { type, subtype, params, q };
}

/** A token as it is, a quoted-string without its quotes and escapes, or `undefined` when malformed. */
function unquote(value: string): string | undefined {
  if (!value.startsWith('"')) return HTTP_TOKEN.test(value) ? value : undefined;
  if (value.length < 2 || !value.endsWith('"')) return undefined;
  let out = '';
  for (let i = 1; i < value.length - 1; i++) {
    const char = value[i]!;
    if (char === '\\') {
      i++;
      if (i >= value.length - 1) return undefined;
      out += value[i];
    } else if (char === '"') {
      return undefined;
    } else {
      out += char;
    }
  }
  return out;
}

/** Split on `separator`, except inside quoted strings (where a backslash escapes the next character). */
function splitOutsideQuotes(input: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < input.length; i++) {
    const char = input[i];
    if (quoted) {
      if (char === '\\') i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') {
      quoted = true;
    } else if (char === separator) {
      parts.push(input.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(input.slice(start));
  return parts;
}

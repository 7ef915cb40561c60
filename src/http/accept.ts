/**
 * `Accept` (RFC 9110 section 12.5.1): the media ranges a client names, and the offer it prefers.
 * The decisions are jshttp negotiator's (Express, Koa), without its CommonJS modules: a property
 * test holds the two to the same answers.
 */

/** One media range of an `Accept` value, its weight and its position in the list. */
export interface MediaRange {
  /** Lower-cased type, `*` for a wildcard. */
  readonly type: string;
  /** Lower-cased subtype, `*` for a wildcard. */
  readonly subtype: string;
  /** Parameters other than `q`, names lower-cased (RFC 9110 section 5.6.6), quoted values unescaped. */
  readonly params: ReadonlyMap<string, string>;
  /**
   * The weight (RFC 9110 section 12.4.2), 1 when absent; read as far as it is a number, as negotiator
   * reads it (`0.5x` is 0.5, `x` is NaN, which is never acceptable).
   */
  readonly q: number;
  /** The range's position in the list. */
  readonly index: number;
}

const SEMICOLON = 0x3b;
const COMMA = 0x2c;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

function trimEnd(text: string, start: number, end: number): number {
  let i = end;
  while (i > start && isSpace(text.charCodeAt(i - 1))) i--;
  return i;
}

/** The end of an unquoted value: the next `;` or `,`. */
function valueEnd(text: string, at: number): number {
  let i = at;
  for (
    let c = text.charCodeAt(i);
    i < text.length && c !== SEMICOLON && c !== COMMA;
    c = text.charCodeAt(++i)
  );
  return i;
}

/**
 * A quoted-string's content from after its opening quote (RFC 9110 section 5.6.4), and where the
 * parameter ends; no value when the closing quote is missing.
 */
function quoted(text: string, at: number): { value: string | undefined; end: number } {
  let value = '';
  let i = at;
  while (i < text.length) {
    const c = text.charCodeAt(i++);
    if (c === QUOTE) return { value, end: valueEnd(text, i) };
    if (c === BACKSLASH && i < text.length) value += text[i++];
    else value += String.fromCharCode(c);
  }
  return { value: undefined, end: i };
}

/** Parameters from `at` (a `;`) to the end of the element (a `,`); the first of a name counts. */
function parameters(text: string, at: number): { params: Map<string, string>; end: number } {
  const params = new Map<string, string>();
  let i = at;
  while (i < text.length && text.charCodeAt(i) !== COMMA) {
    i = skipSpace(text, i + 1);
    const nameStart = i;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === COMMA || c === SEMICOLON) break;
      if (c !== EQUALS) {
        i++;
        continue;
      }
      const name = text.slice(nameStart, trimEnd(text, nameStart, i)).toLowerCase();
      i = skipSpace(text, i + 1);
      let value: string | undefined;
      if (text.charCodeAt(i) === QUOTE) {
        const read = quoted(text, i + 1);
        value = read.value;
        i = read.end;
      } else {
        const start = i;
        i = valueEnd(text, i);
        value = text.slice(start, trimEnd(text, start, i));
      }
      if (value !== undefined && !params.has(name)) params.set(name, value);
      break;
    }
  }
  return { params, end: i };
}

/**
 * The media ranges of an `Accept` value (RFC 9110 section 12.5.1), in order; elements without a `/`
 * are dropped. Commas and semicolons inside quoted strings are respected, and whitespace around `,`,
 * `;` and `=` is ignored. Elements are read as jshttp negotiator reads them (a property test holds the
 * two to the same ranges), the one reading of `Accept` for response types and API versions alike.
 *
 * @example
 * parseAccept('application/json; Version="2"; q=0.5, text/*;q=0.1');
 * // [{ type: 'application', subtype: 'json', params: Map { 'version' => '2' }, q: 0.5, index: 0 }, ...]
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-12.5.1
 */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  let i = 0;
  for (let index = 0; i < header.length; index++) {
    const start = skipSpace(header, i);
    const end = valueEnd(header, start);
    const range = header.slice(start, trimEnd(header, start, end));
    const { params, end: after } = parameters(header, end);
    i = after + 1;
    const slash = range.indexOf('/');
    if (slash === -1) continue;
    const weight = params.get('q');
    params.delete('q');
    // A weight is read as far as it is a number (`0.5x` is 0.5); one that is none (`q=x`) is NaN,
    // which never counts as acceptable.
    const q = weight === undefined || weight === '' ? 1 : Number.parseFloat(weight);
    const type = range.slice(0, slash).toLowerCase();
    ranges.push({ type, subtype: range.slice(slash + 1).toLowerCase(), params, q, index });
  }
  return ranges;
}

interface Priority {
  readonly q: number;
  /** Specificity: 4 for the type, 2 for the subtype, 1 for parameters that match. */
  readonly s: number;
  /** The matching range's position in `Accept`. */
  readonly o: number;
  /** The offer's position among the offers. */
  readonly i: number;
}

/** How a range applies to an offer (a lower-case `type/subtype` without parameters), if it does. */
function specificity(range: MediaRange, type: string, subtype: string): number | undefined {
  let s = 0;
  if (range.type === type) s |= 4;
  else if (range.type !== '*') return undefined;
  if (range.subtype === subtype) s |= 2;
  else if (range.subtype !== '*') return undefined;
  if (range.params.size > 0) {
    // An offer has no parameters: only empty or `*` values match it.
    for (const value of range.params.values()) if (value !== '*' && value !== '') return undefined;
    s |= 1;
  }
  return s;
}

/** The most specific range that applies to the offer, then the heaviest, then the last listed. */
function priorityOf(offer: string, ranges: readonly MediaRange[], i: number): Priority {
  const slash = offer.indexOf('/');
  const type = offer.slice(0, slash);
  const subtype = offer.slice(slash + 1);
  let best: Priority = { q: 0, s: 0, o: -1, i };
  for (const range of ranges) {
    const s = specificity(range, type, subtype);
    if (s === undefined) continue;
    const candidate = { q: range.q, s, o: range.index, i };
    if ((best.s - candidate.s || best.q - candidate.q || best.o - candidate.o) < 0) best = candidate;
  }
  return best;
}

/**
 * The offer the client prefers: highest weight, then the most specific range, then the earliest
 * range, then the server's order; `undefined` when none has a weight above 0.
 *
 * @param offers lower-case `type/subtype`, in server preference.
 * @example preferredMediaType('application/json;q=0.5, text/csv', ['application/json', 'text/csv']) // 'text/csv'
 */
export function preferredMediaType(accept: string, offers: readonly string[]): string | undefined {
  const ranges = parseAccept(accept);
  let chosen: Priority | undefined;
  offers.forEach((offer, i) => {
    const priority = priorityOf(offer, ranges, i);
    if (!(priority.q > 0)) return;
    if (chosen === undefined || compare(priority, chosen) < 0) chosen = priority;
  });
  return chosen === undefined ? undefined : offers[chosen.i];
}

function compare(a: Priority, b: Priority): number {
  return b.q - a.q || b.s - a.s || a.o - b.o || a.i - b.i || 0;
}

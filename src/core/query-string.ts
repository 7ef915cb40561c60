/**
 * `application/x-www-form-urlencoded` parsing of a query string (WHATWG URL Standard, section 5.1),
 * into each name's last value plus the names that repeat. The common case (well-formed escapes)
 * is decoded directly; anything unusual (a malformed escape, bytes that are not UTF-8, a lone
 * surrogate) goes through `URLSearchParams`, so the result always equals the standard parser's.
 */

const SURROGATE = /[\uD800-\uDFFF]/;

/** A parsed query string. */
export interface ParsedQuery {
  /** Each name's last value, in an object that inherits nothing. */
  readonly last: Record<string, string>;
  /** The names given more than once (absent when none is). */
  readonly repeated: ReadonlySet<string> | undefined;
}

/** Parse a query string (without its `?`). */
export function parseQuery(raw: string): ParsedQuery {
  // Like URLSearchParams, one leading '?' is not part of the first name (`/books??a=1` names `a`).
  const search = raw.charCodeAt(0) === 0x3f ? raw.slice(1) : raw;
  const fast = new QueryBuilder();
  if (search === '' || (!SURROGATE.test(search) && decodeInto(search, fast))) return fast;
  const standard = new QueryBuilder();
  for (const [name, value] of new URLSearchParams(raw)) standard.add(name, value);
  return standard;
}

/**
 * The prototype of every parsed query: empty, frozen, with no prototype of its own, so a query
 * inherits nothing (`toString`, `__proto__` and `constructor` are ordinary names). A null-prototype
 * object itself would do that too, but V8 keeps such objects as hash tables, where adding a name
 * just sliced from the URL costs about fifteen times as much.
 */
const NOTHING_INHERITED: object = Object.freeze(Object.create(null));

class QueryBuilder implements ParsedQuery {
  readonly last: Record<string, string> = Object.create(NOTHING_INHERITED);
  repeated: Set<string> | undefined = undefined;

  add(name: string, value: string): void {
    if (name in this.last) {
      this.repeated ??= new Set();
      this.repeated.add(name);
    }
    this.last[name] = value;
  }
}

/** Fills `query`; false when some part needs the standard parser. */
function decodeInto(search: string, query: QueryBuilder): boolean {
  let start = 0;
  while (start <= search.length) {
    let end = search.indexOf('&', start);
    if (end === -1) end = search.length;
    if (end > start) {
      let equals = search.indexOf('=', start);
      if (equals === -1 || equals > end) equals = end;
      const name = decodeComponent(search.slice(start, equals));
      const value = equals === end ? '' : decodeComponent(search.slice(equals + 1, end));
      if (name === undefined || value === undefined) return false;
      query.add(name, value);
    }
    start = end + 1;
  }
  return true;
}

function decodeComponent(raw: string): string | undefined {
  const spaced = raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}

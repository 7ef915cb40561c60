/**
 * A deliberately small path pattern for moved URLs. Old URLs are exactly the ones that break today's
 * naming rules (`/users/{id}/accountType`), so they are not parsed with the router's `parsePattern`:
 * static segments are any characters but `/`, `{`, `}`, `?` and `#`, compared case-sensitively;
 * `{name}` is a whole-segment parameter.
 */
type UrlSegment =
  | { readonly kind: 'static'; readonly value: string }
  | { readonly kind: 'param'; readonly name: string };

export interface UrlPattern {
  readonly source: string;
  readonly segments: readonly UrlSegment[];
  /** Whether the pattern was written with a trailing slash (kept in generated URLs). */
  readonly trailingSlash: boolean;
}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** Parse a moved-URL pattern, throwing a `TypeError` that names `owner` when it is malformed. */
export function parseUrlPattern(source: string, owner: string): UrlPattern {
  if (typeof source !== 'string' || !source.startsWith('/')) {
    throw new TypeError(`${owner}: pattern must be a path starting with "/", got ${JSON.stringify(source)}`);
  }
  if (/[?#\s]/.test(source)) {
    throw new TypeError(`${owner}: pattern must be a bare path (no query, fragment or spaces): ${source}`);
  }
  const trailingSlash = source.length > 1 && source.endsWith('/');
  const body = trailingSlash ? source.slice(0, -1) : source;
  const parts = body === '/' ? [] : body.slice(1).split('/');
  const names = new Set<string>();
  const segments = parts.map((part): UrlSegment => {
    const param = PARAM.exec(part);
    if (param) {
      const name = param[1]!;
      if (names.has(name)) throw new TypeError(`${owner}: pattern repeats {${name}}: ${source}`);
      names.add(name);
      return { kind: 'param', name };
    }
    if (part === '' || part.includes('{') || part.includes('}')) {
      throw new TypeError(`${owner}: pattern has a malformed segment ${JSON.stringify(part)}: ${source}`);
    }
    return { kind: 'static', value: part };
  });
  return { source, segments, trailingSlash };
}

/** The parameter names of a pattern, in order. */
export function paramNames(pattern: UrlPattern): string[] {
  return pattern.segments.flatMap((segment) => (segment.kind === 'param' ? [segment.name] : []));
}

/** Match split path segments (raw, still percent-encoded) against a pattern. */
export function matchSegments(
  pattern: UrlPattern,
  parts: readonly string[],
): Map<string, string> | undefined {
  if (parts.length !== pattern.segments.length) return undefined;
  const params = new Map<string, string>();
  for (let i = 0; i < parts.length; i++) {
    const segment = pattern.segments[i]!;
    const part = parts[i]!;
    if (segment.kind === 'static') {
      if (segment.value !== part) return undefined;
    } else {
      if (part === '') return undefined;
      params.set(segment.name, part);
    }
  }
  return params;
}

/** Whether some concrete path could match both patterns (a parameter matches any segment). */
export function overlaps(a: UrlPattern, b: UrlPattern): boolean {
  if (a.segments.length !== b.segments.length) return false;
  return a.segments.every((segment, i) => {
    const other = b.segments[i]!;
    return segment.kind === 'param' || other.kind === 'param' || segment.value === other.value;
  });
}

/** Fill a pattern with raw segment values. */
export function fillPattern(pattern: UrlPattern, params: ReadonlyMap<string, string>): string {
  if (pattern.segments.length === 0) return '/';
  const path = pattern.segments
    .map((segment) => `/${segment.kind === 'static' ? segment.value : params.get(segment.name)!}`)
    .join('');
  return pattern.trailingSlash ? `${path}/` : path;
}

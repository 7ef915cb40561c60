/**
 * The framework-free half of each adapter's `conventionsNotFound`: given the routes a framework
 * registered (method and path pattern in its own syntax), what the core router would answer a
 * request none of them took: 404, 405 with `Allow`, or for OPTIONS on a known path 204 with `Allow`
 * (RFC 9110 sections 15.5.5, 15.5.6, 9.3.7 and 10.2.1).
 */
import { allowField, methodNotAllowedError, notFoundError } from '../core/unmatched.js';
import type { ApiError } from '../errors/api-error.js';

/** A route as a framework registered it: `/books/:id`, `/files/*`, `/files/*rest`. */
export interface FrameworkRoute {
  readonly method: string;
  readonly path: string;
}

/** What to answer: an error to throw, or the `Allow` of an OPTIONS request. */
export type Unmatched = { readonly error: ApiError } | { readonly options: string };

/**
 * Whether a framework's path pattern matches a path's segments, one by one: `:name` (with any
 * `{regex}` or `?` after it, taken as any segment) matches one non-empty segment, `*` or `*name`
 * the rest; other segments match literally. A trailing slash is ignored, as the core router does.
 */
function patternMatches(pattern: string, got: readonly string[]): boolean {
  const want = segmentsOf(pattern);
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!;
    if (segment.startsWith('*')) return true;
    if (segment.startsWith(':')) {
      if (segment.endsWith('?') && i === got.length) return i === want.length - 1;
      if (got[i] === undefined || got[i] === '') return false;
    } else if (segment !== got[i]) return false;
  }
  return want.length === got.length;
}

function segmentsOf(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed === '/' || trimmed === '' ? [] : trimmed.slice(1).split('/');
}

/** The answer to a request for `path` with `method` that no route took (see the module comment). */
export function unmatched(routes: Iterable<FrameworkRoute>, method: string, path: string): Unmatched {
  const methods = new Set<string>();
  const segments = segmentsOf(path);
  for (const route of routes) {
    const name = route.method.toUpperCase();
    if (name !== 'ALL' && patternMatches(route.path, segments)) methods.add(name);
  }
  return unmatchedMethods(methods, method);
}

/**
 * The answer to a request for `method` on a path that the routes in `methods` take (none: 404). A
 * route for `method` itself means the framework's router declined the path as written, though it
 * matches with its trailing slash ignored (Hono and Fastify take `/books` but not `/books/` by
 * default): no resource is there, 404, never a 405 whose `Allow` names the method it refuses.
 */
export function unmatchedMethods(methods: ReadonlySet<string>, method: string): Unmatched {
  if (methods.size === 0) return { error: notFoundError() };
  const allow = allowField(methods);
  if (method === 'OPTIONS') return { options: allow };
  if (allow.split(', ').includes(method)) return { error: notFoundError() };
  return { error: methodNotAllowedError(method, allow) };
}

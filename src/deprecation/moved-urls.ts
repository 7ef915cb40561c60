import { defineMiddleware } from '../core/compose.js';
import { trimTrailingSlash } from '../core/route-pattern.js';
import { earlyResponse } from '../http/middleware-hooks.js';
import type { Middleware } from '../http/types.js';
import {
  fillPattern,
  matchSegments,
  overlaps,
  paramNames,
  parseUrlPattern,
  type UrlPattern,
} from './url-pattern.js';

/** One moved URL: requests to `from` are redirected to `to`. */
export interface MovedUrl {
  /** The old pattern, e.g. `/users/{id}/accountType` (naming rules do not apply to it). */
  readonly from: string;
  /** The new pattern, with the same `{params}`, e.g. `/users/{id}/account-type`. */
  readonly to: string;
  /**
   * `308` (default): every method is redirected and keeps its method and body (RFC 9110 section
   * 15.4.9). `301`: GET and HEAD get 301 (section 15.4.2); other methods get 308, because clients may
   * turn a 301 POST into a GET and lose the body.
   */
  readonly status?: 301 | 308;
}

export interface MovedUrlsOptions {
  readonly table: readonly MovedUrl[];
}

/** A redirect decision. */
export interface MovedRedirect {
  readonly status: 301 | 308;
  /** The new URL: the `to` pattern filled with the old path's parameters, plus the original query. */
  readonly location: string;
}

/** A checked table of moved URLs, answering "where did this path move?". */
export interface MovedUrlTable {
  /** The redirect for a request, or `undefined` when its path did not move. `search` has no `?`. */
  redirect(method: string, path: string, search: string): MovedRedirect | undefined;
}

interface Entry {
  readonly from: UrlPattern;
  readonly to: UrlPattern;
  readonly status: 301 | 308;
}

const OWNER = 'movedUrls';

/**
 * Check a moved-URL table once (a `TypeError` at start-up for a malformed pattern, `from` and `to`
 * with different parameters, two entries for the same old URL, or a `to` that is itself moved, which
 * would chain or loop) and return its pure lookup. The first matching entry wins.
 *
 * @example movedUrlTable([{ from: '/users/{id}/accountType', to: '/users/{id}/account-type' }])
 *   .redirect('GET', '/users/7/accountType', 'a=1') // { status: 308, location: '/users/7/account-type?a=1' }
 */
export function movedUrlTable(table: readonly MovedUrl[]): MovedUrlTable {
  if (!Array.isArray(table) || table.length === 0)
    throw new TypeError(`${OWNER}: "table" must be a non-empty array`);
  const entries: Entry[] = table.map((row, index) => {
    const where = `${OWNER}: table[${index}]`;
    const from = parseUrlPattern(row.from, `${where}.from`);
    const to = parseUrlPattern(row.to, `${where}.to`);
    const status = row.status ?? 308;
    if (status !== 301 && status !== 308) {
      throw new TypeError(`${where}.status must be 301 or 308, got ${String(row.status)}`);
    }
    const fromNames = paramNames(from).sort().join(', ');
    const toNames = paramNames(to).sort().join(', ');
    if (fromNames !== toNames) {
      throw new TypeError(
        `${where}: "from" and "to" must have the same parameters, got {${fromNames}} and {${toNames}} (${row.from} → ${row.to})`,
      );
    }
    return { from, to, status };
  });
  entries.forEach((entry, i) => {
    entries.forEach((other, j) => {
      if (overlaps(entry.to, other.from)) {
        throw new TypeError(
          `${OWNER}: table[${i}].to ${entry.to.source} is itself moved by table[${j}] (${other.from.source}); redirects would chain or loop`,
        );
      }
      if (j > i && sameShape(entry.from, other.from)) {
        throw new TypeError(`${OWNER}: table[${i}] and table[${j}] both move ${entry.from.source}`);
      }
    });
  });
  const bySegmentCount = new Map<number, Entry[]>();
  for (const entry of entries) {
    const count = entry.from.segments.length;
    bySegmentCount.set(count, [...(bySegmentCount.get(count) ?? []), entry]);
  }

  return {
    redirect(method, path, search) {
      const trimmed = trimTrailingSlash(path);
      // Most requests did not move: rule them out by segment count before splitting the path.
      const candidates = bySegmentCount.get(segmentCount(trimmed));
      if (candidates === undefined) return undefined;
      const parts = trimmed === '/' ? [] : trimmed.slice(1).split('/');
      for (const entry of candidates) {
        const params = matchSegments(entry.from, parts);
        if (params === undefined) continue;
        for (const [name, value] of params) params.set(name, safeForLocation(value));
        const query = search === '' ? '' : `?${safeForLocation(search)}`;
        const status = entry.status === 301 && method !== 'GET' && method !== 'HEAD' ? 308 : entry.status;
        return { status, location: `${fillPattern(entry.to, params)}${query}` };
      }
      return undefined;
    },
  };
}

/** Segments of a path without a trailing slash: `/` has none, `/a/b` two. */
function segmentCount(path: string): number {
  if (path === '/') return 0;
  let count = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) count++;
  return count;
}

/**
 * Redirects old URLs to their new place (RFC 9110 section 15.4.9; see docs/deprecation.md) before routing, so use it as application
 * middleware: `Location` is the new URL with the same path parameters and query string. See
 * {@link MovedUrl} for the status per method.
 *
 * @example
 * createApp({ use: [movedUrls({ table: [{ from: '/users/{id}/accountType', to: '/users/{id}/account-type' }] })] });
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-15.4.9
 */
export function movedUrls(options: MovedUrlsOptions): Middleware {
  const table = movedUrlTable(options?.table);
  return defineMiddleware({
    before: function redirectMovedUrl(ctx) {
      const { method, path, search } = ctx.request;
      const redirect = table.redirect(method, path, search);
      return redirect && earlyResponse({ status: redirect.status, headers: { location: redirect.location } });
    },
  });
}

function sameShape(a: UrlPattern, b: UrlPattern): boolean {
  return (
    a.segments.length === b.segments.length &&
    a.segments.every((segment, i) => {
      const other = b.segments[i]!;
      return segment.kind === 'param'
        ? other.kind === 'param'
        : other.kind === 'static' && other.value === segment.value;
    })
  );
}

/**
 * A raw path segment or query as received, made safe for a `Location` field: existing
 * percent-escapes and URI characters are kept; anything else (spaces, quotes, non-ASCII, controls)
 * is percent-encoded, so nothing from the request can break the header.
 */
function safeForLocation(raw: string): string {
  return raw.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/gu, (char) => {
    try {
      return encodeURIComponent(char);
    } catch {
      return '%EF%BF%BD'; // a lone surrogate: U+FFFD, the replacement character
    }
  });
}

import type { Context } from 'rest-conventions';
import { decodeCursor, encodeCursor, pageLink } from 'rest-conventions/envelope';
import { ApiError } from 'rest-conventions/errors';
import { decodeQuery, queryInteger, queryList, querySort, text } from 'rest-conventions/validation';
import { STANDARD_STATUSES, type Standard } from './standard-store.js';

export const STANDARD_ATTRIBUTES = ['code', 'name', 'description', 'status', 'publishedAt'] as const;
const SORTABLE = ['code', 'name', 'publishedAt', 'createdAt'] as const;
type SortField = (typeof SORTABLE)[number];
type SortKey = { readonly field: SortField; readonly descending: boolean };
type Position = Array<string | number | null>;

export const DEFAULT_PAGE_SIZE = 20;

/** The parameters of `GET /api/v1/standards/`, built once. */
const LISTING_QUERY = {
  'page[size]': queryInteger({ min: 1, max: 100 }),
  'page[after]': text({ maxLength: 2000 }),
  'page[before]': text({ maxLength: 2000 }),
  'filter[status]': queryList(STANDARD_STATUSES),
  sort: querySort(SORTABLE),
  'fields[standards]': queryList(STANDARD_ATTRIBUTES),
};

/** The query of `GET /api/v1/standards/`; anything else is a 400 naming the parameter. */
export function listingQuery(ctx: Context) {
  const query = decodeQuery(ctx, LISTING_QUERY);
  if (query['page[after]'] !== undefined && query['page[before]'] !== undefined) {
    throw new ApiError(400, {
      code: 'invalid-parameter',
      detail: 'Give page[after] or page[before], not both.',
      source: { parameter: 'page[before]' },
    });
  }
  return query;
}

function sortValue(standard: Standard, field: SortField): string | number | null {
  const value = standard[field];
  return value instanceof Date ? value.getTime() : value;
}

/** The position of a standard in the sort order: its sort values, then its id as the tie-breaker. */
function positionOf(standard: Standard, keys: readonly SortKey[]): Position {
  return [...keys.map((k) => sortValue(standard, k.field)), standard.id];
}

function compareValues(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return 1; // nulls last
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

function comparePositions(a: Position, b: Position, keys: readonly SortKey[]): number {
  for (let i = 0; i < a.length; i++) {
    const descending = keys[i]?.descending === true;
    const order = compareValues(a[i] ?? null, b[i] ?? null);
    if (order !== 0) return descending ? -order : order;
  }
  return 0;
}

function cursorParameter(
  cursor: string | undefined,
  name: string,
  keys: readonly SortKey[],
): Position | undefined {
  if (cursor === undefined) return undefined;
  const position = decodeCursor(cursor);
  if (position === undefined || position.length !== keys.length + 1) {
    throw new ApiError(400, {
      code: 'invalid-parameter',
      detail: `${name} is not a cursor from this listing.`,
      source: { parameter: name },
    });
  }
  return position;
}

/**
 * Filter, sort and cut one page with keyset (cursor) pagination: stable under inserts, and the
 * cursors are opaque. Returns the page and its `links` (self, and next/prev only when they exist).
 */
export function listPage(ctx: Context, all: readonly Standard[], query: ReturnType<typeof listingQuery>) {
  const keys: readonly SortKey[] = query.sort ?? [{ field: 'createdAt', descending: false }];
  const statuses = query['filter[status]'];
  const size = query['page[size]'] ?? DEFAULT_PAGE_SIZE;
  const after = cursorParameter(query['page[after]'], 'page[after]', keys);
  const before = cursorParameter(query['page[before]'], 'page[before]', keys);

  const ordered = all
    .filter((s) => statuses === undefined || statuses.includes(s.status))
    .map((standard) => ({ standard, position: positionOf(standard, keys) }))
    .sort((a, b) => comparePositions(a.position, b.position, keys));

  let start = 0;
  let end = ordered.length;
  if (after !== undefined) start = ordered.findIndex((e) => comparePositions(e.position, after, keys) > 0);
  if (start === -1) start = ordered.length;
  if (before !== undefined) {
    end = ordered.findIndex((e) => comparePositions(e.position, before, keys) >= 0);
    if (end === -1) end = ordered.length;
    start = Math.max(0, end - size);
  } else {
    end = Math.min(ordered.length, start + size);
  }
  const page = ordered.slice(start, end);
  const links: Record<string, string> = { self: pageLink(ctx, {}) };
  const first = page[0];
  const last = page[page.length - 1];
  if (last !== undefined && end < ordered.length) {
    links.next = pageLink(ctx, { 'page[after]': encodeCursor(last.position), 'page[before]': undefined });
  }
  if (first !== undefined && start > 0) {
    links.prev = pageLink(ctx, { 'page[before]': encodeCursor(first.position), 'page[after]': undefined });
  }
  return { standards: page.map((e) => e.standard), links };
}

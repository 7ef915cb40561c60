import type { Context } from 'rest-conventions';
import { decodeCursor, encodeCursor, pageLink } from 'rest-conventions/envelope';
import { ApiError } from 'rest-conventions/errors';
import { decodeQuery, queryInteger, queryList, querySort, text } from 'rest-conventions/validation';
import { type Position, positionOf, SORTABLE, type SortKey, validPosition } from './standard-order.js';
import { STANDARD_STATUSES, type StandardStore } from './standard-store.js';

export const STANDARD_ATTRIBUTES = ['code', 'name', 'description', 'status', 'publishedAt'] as const;

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

function cursorParameter(
  cursor: string | undefined,
  name: string,
  keys: readonly SortKey[],
): Position | undefined {
  if (cursor === undefined) return undefined;
  const position = decodeCursor(cursor);
  if (position === undefined || !validPosition(position, keys)) {
    throw new ApiError(400, {
      code: 'invalid-parameter',
      detail: `${name} is not a cursor from this listing.`,
      source: { parameter: name },
    });
  }
  return position;
}

/**
 * One page with keyset (cursor) pagination, cut by the store: stable under inserts and deletes, and
 * the cursors are opaque. Returns the page and its `links` (self, and next/prev only when they exist).
 */
export async function listPage(ctx: Context, store: StandardStore, query: ReturnType<typeof listingQuery>) {
  const keys: readonly SortKey[] = query.sort ?? [{ field: 'createdAt', descending: false }];
  const page = await store.page({
    keys,
    statuses: query['filter[status]'],
    size: query['page[size]'] ?? DEFAULT_PAGE_SIZE,
    after: cursorParameter(query['page[after]'], 'page[after]', keys),
    before: cursorParameter(query['page[before]'], 'page[before]', keys),
  });
  const links: Record<string, string> = { self: pageLink(ctx, {}) };
  const first = page.standards[0];
  const last = page.standards[page.standards.length - 1];
  if (last !== undefined && page.hasNext) {
    const cursor = encodeCursor([...positionOf(last, keys)]);
    links.next = pageLink(ctx, { 'page[after]': cursor, 'page[before]': undefined });
  }
  if (first !== undefined && page.hasPrev) {
    const cursor = encodeCursor([...positionOf(first, keys)]);
    links.prev = pageLink(ctx, { 'page[before]': cursor, 'page[after]': undefined });
  }
  return { standards: page.standards, links };
}

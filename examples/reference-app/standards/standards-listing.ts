import type * as t from 'io-ts';
import { cursorPaginator, type LinkContext } from 'rest-conventions/envelope';
import { queryList, querySort } from 'rest-conventions/validation';
import { positionOf, SORTABLE, type SortKey, validPosition } from './standard-order.js';
import { STANDARD_STATUSES, type StandardStore } from './standard-store.js';

export const STANDARD_ATTRIBUTES = ['code', 'name', 'description', 'status', 'publishedAt'] as const;

/** Keyset pages of standards: 20 by default, at most 100. */
const pages = cursorPaginator({ defaultSize: 20, maxSize: 100 });

/** The parameters of `GET /api/v1/standards/`, built once. */
export const LISTING_QUERY = {
  ...pages.query,
  'filter[status]': queryList(STANDARD_STATUSES),
  sort: querySort(SORTABLE),
  'fields[standards]': queryList(STANDARD_ATTRIBUTES),
};

/** The decoded query of `GET /api/v1/standards/` (any other parameter is a 400 naming it). */
export type ListingQuery = {
  readonly [K in keyof typeof LISTING_QUERY]?: t.TypeOf<(typeof LISTING_QUERY)[K]>;
};

/**
 * One page with keyset (cursor) pagination, cut by the store: stable under inserts and deletes, and
 * the cursors are opaque. Returns the page and its `links` (self, and next/prev only when they exist).
 */
export async function listPage(ctx: LinkContext, store: StandardStore, query: ListingQuery) {
  const keys: readonly SortKey[] = query.sort ?? [{ field: 'createdAt', descending: false }];
  const asked = pages.page(query, (position) => validPosition(position, keys));
  const page = await store.page({
    keys,
    statuses: query['filter[status]'],
    size: asked.size,
    after: asked.after,
    before: asked.before,
  });
  const first = page.standards[0];
  const last = page.standards[page.standards.length - 1];
  const links = pages.links(ctx, {
    first: first === undefined ? undefined : [...positionOf(first, keys)],
    last: last === undefined ? undefined : [...positionOf(last, keys)],
    hasNext: page.hasNext,
    hasPrev: page.hasPrev,
  });
  return { standards: page.standards, links };
}

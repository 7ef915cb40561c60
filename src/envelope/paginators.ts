import type * as t from 'io-ts';
import { codedError } from '../errors/coded-error.js';
import type { Context } from '../http/types.js';
import { text } from '../validation/codecs.js';
import { decodeQuery } from '../validation/decode-query.js';
import { queryInteger } from '../validation/query-codecs.js';
import type { LinkContext } from './build.js';
import { decodeCursor, encodeCursor, pageLink } from './pagination.js';

/** The largest page size a paginator may allow (a bound on every listing's work per request). */
export const MAX_PAGE_SIZE_LIMIT = 1000;

/** The longest `page[after]`/`page[before]` a cursor paginator accepts, in characters. */
export const MAX_CURSOR_LENGTH = 2000;

function checkSizes(what: string, options: { defaultSize?: unknown; maxSize?: unknown } | undefined) {
  if (options === null || typeof options !== 'object') throw new TypeError(`${what}: give an options object`);
  const { defaultSize, maxSize } = options;
  if (
    typeof maxSize !== 'number' ||
    !Number.isInteger(maxSize) ||
    maxSize < 1 ||
    maxSize > MAX_PAGE_SIZE_LIMIT
  ) {
    throw new TypeError(`${what}: maxSize must be an integer from 1 to ${MAX_PAGE_SIZE_LIMIT}`);
  }
  if (
    typeof defaultSize !== 'number' ||
    !Number.isInteger(defaultSize) ||
    defaultSize < 1 ||
    defaultSize > maxSize
  ) {
    throw new TypeError(`${what}: defaultSize must be an integer from 1 to maxSize (${maxSize})`);
  }
  return { defaultSize, maxSize };
}

/** Page numbers of the links of one offset page (JSON:API 1.0 "Pagination"); pure. */
export interface OffsetPageNumbers {
  readonly first: 1;
  /** The last page holding items (1 for an empty listing). */
  readonly last: number;
  /** The page before, when `number > 1` (the last page when `number` is past the end). */
  readonly prev?: number;
  /** The page after, when items remain after this page. */
  readonly next?: number;
}

/**
 * The pages an offset page links to, from plain numbers: `size` items per page, page `number` (from 1),
 * `total` items in the listing.
 *
 * @example offsetPageNumbers({ size: 10, number: 2, total: 25 }) // { first: 1, last: 3, prev: 1, next: 3 }
 */
export function offsetPageNumbers(page: {
  readonly size: number;
  readonly number: number;
  readonly total: number;
}): OffsetPageNumbers {
  const { size, number, total } = page;
  const last = Math.max(1, Math.ceil(total / size));
  return {
    first: 1,
    last,
    ...(number > 1 ? { prev: Math.min(number - 1, last) } : {}),
    ...(number * size < total ? { next: number + 1 } : {}),
  };
}

/** One offset page as a request asks for it. */
export interface OffsetPage {
  readonly size: number;
  /** From 1. */
  readonly number: number;
  /** Items to skip: `(number - 1) * size`. */
  readonly offset: number;
}

export interface OffsetPaginator {
  /** The query codecs (`page[size]`, `page[number]`), for a declared route's `query` or `decodeQuery`. */
  readonly query: {
    readonly 'page[size]': t.Type<number, string, unknown>;
    readonly 'page[number]': t.Type<number, string, unknown>;
  };
  /**
   * The page asked for, defaults applied. Given a context, decodes these two parameters only (any other
   * is a 400, as `decodeQuery` answers); given the query a declared route decoded, reads it.
   */
  page(from: Context | { readonly 'page[size]'?: number; readonly 'page[number]'?: number }): OffsetPage;
  /** `links` for the page: `self`, `first`, `last`, and `prev`/`next` when they exist; the query is kept. */
  links(ctx: LinkContext, page: OffsetPage, total: number): Record<string, string>;
}

/**
 * Offset pagination with `page[size]` and `page[number]` (JSON:API 1.0 "Pagination"): a bad value
 * (not an integer, below 1, a size above `maxSize`) is a 400 naming the parameter.
 *
 * @example
 * const pages = offsetPaginator({ defaultSize: 10, maxSize: 100 });
 * const page = pages.page(ctx.query);
 * dataDocument(all.slice(page.offset, page.offset + page.size), { links: pages.links(ctx, page, all.length) });
 */
export function offsetPaginator(options: {
  readonly defaultSize: number;
  readonly maxSize: number;
}): OffsetPaginator {
  const { defaultSize, maxSize } = checkSizes('offsetPaginator', options);
  const query = Object.freeze({
    'page[size]': queryInteger({ min: 1, max: maxSize }),
    'page[number]': queryInteger({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  });
  return Object.freeze({
    query,
    page(from: Context | { readonly 'page[size]'?: number; readonly 'page[number]'?: number }): OffsetPage {
      const values = isContext(from) ? decodeQuery(from, query) : from;
      const size = values['page[size]'] ?? defaultSize;
      const number = values['page[number]'] ?? 1;
      // Past Number.MAX_SAFE_INTEGER the offset is not exact; such a page is empty anyway.
      return { size, number, offset: Math.min((number - 1) * size, Number.MAX_SAFE_INTEGER) };
    },
    links(ctx: LinkContext, page: OffsetPage, total: number): Record<string, string> {
      const numbers = offsetPageNumbers({ size: page.size, number: page.number, total });
      const to = (n: number) => pageLink(ctx, { 'page[number]': String(n) });
      return {
        self: pageLink(ctx, {}),
        first: to(numbers.first),
        last: to(numbers.last),
        ...(numbers.prev === undefined ? {} : { prev: to(numbers.prev) }),
        ...(numbers.next === undefined ? {} : { next: to(numbers.next) }),
      };
    },
  });
}

/** A position in a keyset listing: the sort key values of one item. */
export type CursorPosition = Array<string | number | null>;

/** One cursor page as a request asks for it: at most one of `after` and `before`. */
export interface CursorPage {
  readonly size: number;
  readonly after?: CursorPosition;
  readonly before?: CursorPosition;
}

export interface CursorPaginator {
  /** The query codecs (`page[size]`, `page[after]`, `page[before]`). */
  readonly query: {
    readonly 'page[size]': t.Type<number, string, unknown>;
    readonly 'page[after]': t.RefinementC<t.StringC>;
    readonly 'page[before]': t.RefinementC<t.StringC>;
  };
  /**
   * The page asked for: 400 when both cursors are given, or when one is not a cursor this listing
   * made (`isPosition` says whether a decoded position fits the listing, e.g. its sort keys).
   */
  page(
    from:
      | Context
      | { readonly 'page[size]'?: number; readonly 'page[after]'?: string; readonly 'page[before]'?: string },
    isPosition?: (position: CursorPosition) => boolean,
  ): CursorPage;
  /**
   * `links` for a page: `self`, `next` (after `last`) when `hasNext`, `prev` (before `first`) when
   * `hasPrev`; the rest of the query is kept.
   */
  links(
    ctx: LinkContext,
    edges: {
      readonly first?: CursorPosition | undefined;
      readonly last?: CursorPosition | undefined;
      readonly hasNext: boolean;
      readonly hasPrev: boolean;
    },
  ): Record<string, string>;
}

/**
 * Cursor (keyset) pagination with `page[size]`, `page[after]` and `page[before]` (JSON:API 1.0
 * "Pagination", cursor profile): stable under inserts and deletes; cursors are opaque
 * (`encodeCursor`). Bad values are a 400 naming the parameter.
 *
 * @example
 * const pages = cursorPaginator({ defaultSize: 20, maxSize: 100 });
 * const page = pages.page(ctx.query, (position) => position.length === 2);
 */
export function cursorPaginator(options: {
  readonly defaultSize: number;
  readonly maxSize: number;
}): CursorPaginator {
  const { defaultSize, maxSize } = checkSizes('cursorPaginator', options);
  const cursor = text({ maxLength: MAX_CURSOR_LENGTH });
  const query = Object.freeze({
    'page[size]': queryInteger({ min: 1, max: maxSize }),
    'page[after]': cursor,
    'page[before]': cursor,
  });
  const position = (value: string | undefined, name: string, fits: (p: CursorPosition) => boolean) => {
    if (value === undefined) return undefined;
    const decoded = decodeCursor(value);
    if (decoded === undefined || !fits(decoded)) {
      throw codedError(400, 'invalid-cursor', {
        detail: `${name} is not a cursor from this listing.`,
        source: { parameter: name },
      });
    }
    return decoded;
  };
  return Object.freeze({
    query,
    page(
      from:
        | Context
        | {
            readonly 'page[size]'?: number;
            readonly 'page[after]'?: string;
            readonly 'page[before]'?: string;
          },
      isPosition: (position: CursorPosition) => boolean = () => true,
    ): CursorPage {
      const values = isContext(from) ? decodeQuery(from, query) : from;
      if (values['page[after]'] !== undefined && values['page[before]'] !== undefined) {
        throw codedError(400, 'invalid-parameter', {
          detail: 'Give page[after] or page[before], not both.',
          source: { parameter: 'page[before]' },
        });
      }
      const after = position(values['page[after]'], 'page[after]', isPosition);
      const before = position(values['page[before]'], 'page[before]', isPosition);
      return {
        size: values['page[size]'] ?? defaultSize,
        ...(after === undefined ? {} : { after }),
        ...(before === undefined ? {} : { before }),
      };
    },
    links(ctx: LinkContext, edges: Parameters<CursorPaginator['links']>[1]): Record<string, string> {
      const links: Record<string, string> = { self: pageLink(ctx, {}) };
      if (edges.last !== undefined && edges.hasNext) {
        links.next = pageLink(ctx, { 'page[after]': encodeCursor(edges.last), 'page[before]': undefined });
      }
      if (edges.first !== undefined && edges.hasPrev) {
        links.prev = pageLink(ctx, { 'page[before]': encodeCursor(edges.first), 'page[after]': undefined });
      }
      return links;
    },
  });
}

function isContext(value: object): value is Context {
  return 'request' in value && 'queryAll' in value;
}

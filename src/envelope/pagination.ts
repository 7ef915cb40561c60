import { isStorableText } from '../validation/storable-text.js';
import { type LinkContext, selfLink } from './build.js';

/**
 * A link to the current resource with some query parameters replaced (or removed with `undefined`),
 * every other parameter kept: the basis of `links.next` / `links.prev` (JSON:API 1.0 "Pagination").
 *
 * @example pageLink(ctx, { 'page[after]': cursor, 'page[before]': undefined })
 */
export function pageLink(ctx: LinkContext, replace: Readonly<Record<string, string | undefined>>): string {
  const self = selfLink(ctx);
  if (Object.keys(replace).length === 0) return self;
  const query = self.indexOf('?');
  const path = query === -1 ? self : self.slice(0, query);
  const params = new URLSearchParams(ctx.request.search);
  for (const [name, value] of Object.entries(replace)) {
    if (value === undefined) params.delete(name);
    else params.set(name, value);
  }
  const search = params.toString();
  return search === '' ? path : `${path}?${search}`;
}

/**
 * An opaque cursor for keyset pagination: the sort key values of an item, base64url-encoded JSON.
 * Opaque to clients; decoded with {@link decodeCursor}.
 */
export function encodeCursor(position: readonly (string | number | null)[]): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/**
 * The position inside a cursor, or `undefined` when it is not one {@link encodeCursor} could have
 * made: another spelling of it (padding, spaces in the JSON), values other than strings, numbers
 * and `null`, or text no store can hold (U+0000, a lone surrogate). The values are still the
 * client's: check that they fit the listing (types, ranges) before they reach a query.
 */
export function decodeCursor(cursor: string): Array<string | number | null> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || !value.every(isCursorValue)) return undefined;
  return encodeCursor(value) === cursor ? value : undefined;
}

function isCursorValue(value: unknown): value is string | number | null {
  return value === null || typeof value === 'number' || (typeof value === 'string' && isStorableText(value));
}

/**
 * `QUERY /api/v1/standards` (RFC 10008): a filter the query string cannot say, as JSON. Any of
 * several statuses, any of several code prefixes, a range of publication days, and a page; members
 * combine with AND, a list's entries with OR. The filter is normalized (lists sorted, repeats
 * dropped) and written as a URL-safe token: the path of its equivalent resource (section 2.2), which
 * a GET fetches again with the same results as long as the standards have not changed (`Location`,
 * section 2.4). Standards are not sensitive; the token holds nothing but the filter (section 4).
 */
import type * as t from 'io-ts';
import { date, integer, list, oneOf, strictObject, text } from 'rest-conventions/validation';
import { STANDARD_STATUSES, type Standard } from './standard-store.js';

const codePrefix = text({
  maxLength: 32,
  pattern: /^[A-Z0-9][A-Z0-9.-]*$/,
  description: 'the start of a code: upper-case letters, digits, dots or hyphens',
});

/** A page of the results: 20 by default, at most 100; numbered from 1. */
export const QUERY_PAGE_SIZE = { default: 20, max: 100 } as const;

/** The query content: every member optional, `{}` selects every standard. */
export const StandardsFilter = strictObject(
  {},
  {
    status: list(oneOf(STANDARD_STATUSES), { minItems: 1, maxItems: STANDARD_STATUSES.length }),
    codePrefix: list(codePrefix, { minItems: 1, maxItems: 20 }),
    publishedAt: strictObject({}, { from: date(), to: date() }),
    page: strictObject(
      {},
      {
        size: integer({ min: 1, max: QUERY_PAGE_SIZE.max }),
        number: integer({ min: 1, max: 10_000 }),
      },
    ),
  },
);
export type StandardsFilter = t.TypeOf<typeof StandardsFilter>;

/** The filter in one spelling: lists sorted without repeats, the page given in full. */
export function normalizeFilter(filter: StandardsFilter): StandardsFilter {
  const sorted = <T extends string>(values: readonly T[] | undefined) =>
    values === undefined ? undefined : [...new Set(values)].sort();
  const status = sorted(filter.status);
  const codePrefix = sorted(filter.codePrefix);
  return {
    ...(status === undefined ? {} : { status }),
    ...(codePrefix === undefined ? {} : { codePrefix }),
    ...(filter.publishedAt === undefined ||
    (filter.publishedAt.from === undefined && filter.publishedAt.to === undefined)
      ? {}
      : {
          publishedAt: {
            ...(filter.publishedAt.from === undefined ? {} : { from: filter.publishedAt.from }),
            ...(filter.publishedAt.to === undefined ? {} : { to: filter.publishedAt.to }),
          },
        }),
    page: { size: filter.page?.size ?? QUERY_PAGE_SIZE.default, number: filter.page?.number ?? 1 },
  };
}

/** Whether a standard is selected by the filter (the page aside). */
export function selects(filter: StandardsFilter, standard: Standard): boolean {
  if (filter.status !== undefined && !filter.status.includes(standard.status)) return false;
  if (
    filter.codePrefix !== undefined &&
    !filter.codePrefix.some((prefix) => standard.code.startsWith(prefix))
  )
    return false;
  const range = filter.publishedAt;
  if (range !== undefined) {
    if (standard.publishedAt === null) return false;
    // Days of UTC, both ends included: the day of publication is compared, not the instant.
    const day = standard.publishedAt.toISOString().slice(0, 10);
    if (range.from !== undefined && day < range.from) return false;
    if (range.to !== undefined && day > range.to) return false;
  }
  return true;
}

/** One page of the standards the filter selects, by code, and whether more follow. */
export function queryPage(filter: StandardsFilter, all: readonly Standard[]) {
  const { size, number } = normalizeFilter(filter).page!;
  const selected = all.filter((standard) => selects(filter, standard));
  selected.sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  const start = (number! - 1) * size!;
  return {
    standards: selected.slice(start, start + size!),
    hasNext: selected.length > start + size!,
    total: selected.length,
  };
}

/** The token of a normalized filter: its JSON, base64url (at most about 1.3 KB for the largest filter). */
export function filterToken(filter: StandardsFilter): string {
  return Buffer.from(JSON.stringify(normalizeFilter(filter)), 'utf8').toString('base64url');
}

/** The filter a token names, or `undefined` when it names none (a 404: no such resource). */
export function filterOfToken(token: string): StandardsFilter | undefined {
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(token)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const decoded = StandardsFilter.decode(value);
  if (decoded._tag === 'Left') return undefined;
  // One spelling per resource: a token that is not the normalized one names no resource.
  return filterToken(decoded.right) === token ? decoded.right : undefined;
}

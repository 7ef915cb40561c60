import type { Standard, StandardStatus } from './standard-store.js';

/** The fields a standards listing can be sorted by. */
export const SORTABLE = ['code', 'name', 'publishedAt', 'createdAt'] as const;
export type SortField = (typeof SORTABLE)[number];
export interface SortKey {
  readonly field: SortField;
  readonly descending: boolean;
}
/** A place in the sort order: the sort values (dates as epoch milliseconds), then the id. */
export type Position = ReadonlyArray<string | number | null>;

/** One keyset page asked of a {@link StandardStore}: the rows strictly after `after` or before `before`. */
export interface PageRequest {
  readonly keys: readonly SortKey[];
  readonly statuses?: readonly StandardStatus[] | undefined;
  readonly size: number;
  readonly after?: Position | undefined;
  readonly before?: Position | undefined;
}

export interface Page {
  readonly standards: readonly Standard[];
  /** Rows follow the last one on the page. */
  readonly hasNext: boolean;
  /** Rows precede the first one on the page. */
  readonly hasPrev: boolean;
}

function sortValue(standard: Standard, field: SortField): string | number | null {
  const value = standard[field];
  return value instanceof Date ? value.getTime() : value;
}

/** The position of a standard in the sort order: its sort values, then its id as the tie-breaker. */
export function positionOf(standard: Standard, keys: readonly SortKey[]): Position {
  return [...keys.map((k) => sortValue(standard, k.field)), standard.id];
}

/** Ascending puts nulls last; descending reverses the whole order (nulls first), as PostgreSQL does. */
function compareValues(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

export function comparePositions(a: Position, b: Position, keys: readonly SortKey[]): number {
  for (let i = 0; i < a.length; i++) {
    const descending = keys[i]?.descending === true;
    const order = compareValues(a[i] ?? null, b[i] ?? null);
    if (order !== 0) return descending ? -order : order;
  }
  return 0;
}

/** The instants a position may name: years 0001 to 9999 (RFC 3339), all of which PostgreSQL holds. */
const EARLIEST_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * Whether `position` has the shape of a place in the order of `keys`, with values the store can
 * compare (a cursor may be forged: a date far outside PostgreSQL's range would fail the query).
 * The cursor's text was checked by `decodeCursor` (no U+0000, no lone surrogate).
 */
export function validPosition(position: readonly unknown[], keys: readonly SortKey[]): position is Position {
  if (position.length !== keys.length + 1 || typeof position[keys.length] !== 'string') return false;
  return keys.every((key, i) => {
    const value = position[i];
    if (key.field === 'code' || key.field === 'name') return typeof value === 'string';
    const millis =
      typeof value === 'number' && Number.isSafeInteger(value) && value >= EARLIEST_MS && value <= LATEST_MS;
    return millis || (key.field === 'publishedAt' && value === null);
  });
}

/** One keyset page over standards held in memory (the model the PostgreSQL store must agree with). */
export function pageOf(all: Iterable<Standard>, request: PageRequest): Page {
  const { keys, statuses, size, after, before } = request;
  const ordered = [...all]
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
  const standards = ordered.slice(start, end).map((e) => e.standard);
  return {
    standards,
    hasNext: standards.length > 0 && end < ordered.length,
    hasPrev: standards.length > 0 && start > 0,
  };
}

import type { Position, SortField, SortKey } from './standard-order.js';

/** The column of each sort field. */
export const SORT_COLUMNS: Readonly<Record<SortField, string>> = {
  code: 'code',
  name: 'name',
  publishedAt: 'published_at',
  createdAt: 'created_at',
};

/** The SQL of a keyset condition, with the values it binds from `$<first>` on. */
export interface KeysetClause {
  readonly text: string;
  readonly values: readonly unknown[];
}

interface Column {
  readonly column: string;
  readonly descending: boolean;
  readonly value: unknown;
  readonly isNull: boolean;
}

function columnsOf(keys: readonly SortKey[], position: Position): Column[] {
  const columns: Column[] = keys.map((key, i) => {
    const raw = position[i] ?? null;
    const value = raw !== null && key.field !== 'code' && key.field !== 'name' ? new Date(raw) : raw;
    return { column: SORT_COLUMNS[key.field], descending: key.descending, value, isNull: raw === null };
  });
  columns.push({ column: 'id', descending: false, value: position[keys.length], isNull: false });
  return columns;
}

/**
 * `ORDER BY` for `keys` then `id`, forwards or backwards. PostgreSQL's defaults (ASC NULLS LAST,
 * DESC NULLS FIRST) are the order of `comparePositions`, and each one reverses into the other.
 */
export function orderBy(keys: readonly SortKey[], backwards: boolean): string {
  const parts = keys.map((k) => `${SORT_COLUMNS[k.field]} ${k.descending !== backwards ? 'DESC' : 'ASC'}`);
  parts.push(`id ${backwards ? 'DESC' : 'ASC'}`);
  return parts.join(', ');
}

/**
 * The rows strictly after (or, `backwards`, strictly before) `position` in the order of `keys`, as
 * the expanded lexicographic form `(c1 > v1) OR (c1 = v1 AND c2 > v2) OR ...`: row comparison
 * `(c1, c2) > (v1, v2)` cannot mix directions or place nulls. Values are bound as parameters.
 */
export function keysetCondition(
  keys: readonly SortKey[],
  position: Position,
  backwards: boolean,
  firstParameter: number,
): KeysetClause {
  const columns = columnsOf(keys, position);
  const values: unknown[] = [];
  const parameter = (value: unknown): string => {
    values.push(value);
    return `$${firstParameter + values.length - 1}`;
  };
  const refs = columns.map((c) => (c.isNull ? null : parameter(c.value)));
  const alternatives: string[] = [];
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!;
    const step = stepCondition(c.column, refs[i] ?? null, c.descending, backwards);
    if (step === null) continue;
    const equal = columns
      .slice(0, i)
      .map((prev, j) => (refs[j] === null ? `${prev.column} IS NULL` : `${prev.column} = ${refs[j]}`));
    alternatives.push([...equal, step].join(' AND '));
  }
  return { text: alternatives.length === 0 ? 'false' : `(${alternatives.join(' OR ')})`, values };
}

/**
 * The rows beyond `ref` on one column, going forwards or backwards. Ascending order is
 * `values..., NULL`; descending is `NULL, values...` (descending values).
 */
function stepCondition(
  column: string,
  ref: string | null,
  descending: boolean,
  backwards: boolean,
): string | null {
  // Going backwards in an ascending column is going forwards in a descending one, and vice versa.
  const nullsLastAscending = descending === backwards;
  if (nullsLastAscending) {
    // Order: ascending values, then NULL.
    if (ref === null) return null;
    return `(${column} > ${ref} OR ${column} IS NULL)`;
  }
  // Order: NULL, then descending values.
  if (ref === null) return `${column} IS NOT NULL`;
  return `${column} < ${ref}`;
}

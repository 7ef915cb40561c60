import type { Pool } from 'pg';
import { isStorableText } from 'rest-conventions/validation';
import { type RequestScope, requestQueries } from '../database/request-scope.js';
import { keysetCondition, orderBy } from './keyset-sql.js';
import { type Page, type PageRequest, positionOf } from './standard-order.js';
import type {
  Standard,
  StandardChanges,
  StandardInput,
  StandardLookup,
  StandardStore,
  StandardWrite,
} from './standard-store.js';

interface StandardRow {
  readonly id: string;
  readonly code: string;
  readonly name: string;
  readonly description: string | null;
  readonly status: Standard['status'];
  readonly published_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly version: number;
  readonly review_notes: string;
  readonly deleted_at: Date | null;
}

const COLUMNS =
  'id, code, name, description, status, published_at, created_at, updated_at, version, review_notes, deleted_at';
const UNIQUE_VIOLATION = '23505';

function toStandard(row: StandardRow): Standard {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    description: row.description,
    status: row.status,
    publishedAt: row.published_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
    reviewNotes: row.review_notes,
  };
}

/** Whether `error` is the live-code unique index refusing a second standard with one code. */
function duplicateCode(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === UNIQUE_VIOLATION;
}

/**
 * Run one write; a unique violation on the live code becomes `duplicate-code`. Inside a shared
 * transaction the write gets a SAVEPOINT, because a failed statement would otherwise abort the whole
 * transaction, and with it the idempotency record that is to store the 409.
 */
async function refusingDuplicates<R extends StandardWrite | undefined>(
  db: Pick<Pool, 'query'>,
  inTransaction: boolean,
  write: () => Promise<R>,
): Promise<R | { readonly kind: 'duplicate-code' }> {
  if (inTransaction) await db.query('SAVEPOINT standard_write');
  try {
    const result = await write();
    if (inTransaction) await db.query('RELEASE SAVEPOINT standard_write');
    return result;
  } catch (error) {
    if (inTransaction) await db.query('ROLLBACK TO SAVEPOINT standard_write');
    if (duplicateCode(error)) return { kind: 'duplicate-code' };
    throw error;
  }
}

/**
 * Standards in `<prefix>_standards` (`database/migrations.ts`): the version column is the ETag's
 * source and the compare-and-set of PATCH; deletes leave tombstones; pages are keyset queries over
 * the sort key's index (`keyset-sql.ts`).
 */
export class PostgresStandardStore implements StandardStore {
  /** The request's transaction, or the pool. */
  private readonly db: ReturnType<typeof requestQueries>;
  private readonly table: string;
  private readonly sql;

  constructor(
    pool: Pool,
    prefix: string,
    private readonly now: () => Date = () => new Date(),
    private readonly newId: () => string = () => crypto.randomUUID(),
  ) {
    this.db = requestQueries(pool);
    const table = `${prefix}_standards`;
    this.table = table;
    this.sql = {
      create: {
        name: `${prefix}_standard_create`,
        text: `INSERT INTO ${table}
          (id, code, name, description, status, published_at, created_at, updated_at, review_notes)
          VALUES ($1, $2, $3, $4, $5, CASE WHEN $5 = 'published' THEN $6::timestamptz END, $6, $6, $7)
          RETURNING ${COLUMNS}`,
      },
      find: { name: `${prefix}_standard_find`, text: `SELECT ${COLUMNS} FROM ${table} WHERE id = $1` },
      update: {
        name: `${prefix}_standard_update`,
        text: `UPDATE ${table} SET
            code = COALESCE($3, code),
            name = COALESCE($4, name),
            description = CASE WHEN $5 THEN $6 ELSE description END,
            status = COALESCE($7, status),
            published_at = COALESCE(published_at, CASE WHEN COALESCE($7, status) = 'published' THEN $8::timestamptz END),
            updated_at = $8,
            version = version + 1
          WHERE id = $1 AND version = $2 AND deleted_at IS NULL
          RETURNING ${COLUMNS}`,
      },
      delete: {
        name: `${prefix}_standard_delete`,
        text: `UPDATE ${table} SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL`,
      },
      list: {
        name: `${prefix}_standards_all`,
        text: `SELECT ${COLUMNS} FROM ${table} WHERE deleted_at IS NULL ORDER BY created_at, id`,
      },
    };
  }

  async create(input: StandardInput, request?: RequestScope): Promise<StandardWrite> {
    const db = this.db(request);
    const values = [
      this.newId(),
      input.code,
      input.name,
      input.description ?? null,
      input.status ?? 'draft',
      this.now(),
      'internal review pending',
    ];
    return refusingDuplicates(db, request?.var.idempotencyTransaction !== undefined, async () => {
      const { rows } = await db.query<StandardRow>({ ...this.sql.create, values });
      return { kind: 'ok', standard: toStandard(rows[0]!) };
    });
  }

  async find(id: string, request?: RequestScope): Promise<StandardLookup> {
    // A path segment may decode to U+0000, which PostgreSQL's text refuses: no standard has that id.
    if (!isStorableText(id)) return { kind: 'absent' };
    const row = (await this.db(request).query<StandardRow>({ ...this.sql.find, values: [id] })).rows[0];
    if (row === undefined) return { kind: 'absent' };
    return row.deleted_at === null ? { kind: 'live', standard: toStandard(row) } : { kind: 'deleted' };
  }

  async update(
    id: string,
    expectedVersion: number,
    changes: StandardChanges,
    request?: RequestScope,
  ): Promise<StandardWrite | undefined> {
    const db = this.db(request);
    const values = [
      id,
      expectedVersion,
      changes.code ?? null,
      changes.name ?? null,
      changes.description !== undefined,
      changes.description ?? null,
      changes.status ?? null,
      this.now(),
    ];
    return refusingDuplicates(db, request?.var.idempotencyTransaction !== undefined, async () => {
      const row = (await db.query<StandardRow>({ ...this.sql.update, values })).rows[0];
      return row === undefined ? undefined : { kind: 'ok', standard: toStandard(row) };
    });
  }

  async delete(id: string): Promise<void> {
    await this.db().query({ ...this.sql.delete, values: [id, this.now()] });
  }

  async list(): Promise<readonly Standard[]> {
    return (await this.db().query<StandardRow>(this.sql.list)).rows.map(toStandard);
  }

  /**
   * One keyset page: `size + 1` rows beyond the cursor tell whether more follow, and one `EXISTS`
   * looks the other way from the page's first row. Each query walks the sort key's index.
   */
  async page(request: PageRequest): Promise<Page> {
    const { keys, statuses, size } = request;
    const backwards = request.before !== undefined;
    const cursor = request.before ?? request.after;
    const base: string[] = ['deleted_at IS NULL'];
    const values: unknown[] = [];
    if (statuses !== undefined) {
      values.push(statuses);
      base.push(`status = ANY($${values.length}::text[])`);
    }
    const where = [...base];
    if (cursor !== undefined) {
      const clause = keysetCondition(keys, cursor, backwards, values.length + 1);
      where.push(clause.text);
      values.push(...clause.values);
    }
    values.push(size + 1);
    const { rows } = await this.db().query<StandardRow>(
      `SELECT ${COLUMNS} FROM ${this.table} WHERE ${where.join(' AND ')}
        ORDER BY ${orderBy(keys, backwards)} LIMIT $${values.length}`,
      values,
    );
    const more = rows.length > size;
    const cut = rows.slice(0, size).map(toStandard);
    const standards = backwards ? cut.reverse() : cut;
    if (standards.length === 0) return { standards, hasNext: false, hasPrev: false };
    // The other direction: is there anything beyond the page's edge on the side the cursor came from?
    const edge = backwards ? standards[standards.length - 1]! : standards[0]!;
    const other = await this.beyond(
      keys,
      edge,
      !backwards,
      base,
      values.slice(0, statuses === undefined ? 0 : 1),
    );
    return backwards
      ? { standards, hasNext: other, hasPrev: more }
      : { standards, hasNext: more, hasPrev: other };
  }

  private async beyond(
    keys: PageRequest['keys'],
    edge: Standard,
    backwards: boolean,
    base: readonly string[],
    values: readonly unknown[],
  ): Promise<boolean> {
    const clause = keysetCondition(keys, positionOf(edge, keys), backwards, values.length + 1);
    const { rows } = await this.db().query<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${this.table} WHERE ${[...base, clause.text].join(' AND ')}) AS found`,
      [...values, ...clause.values],
    );
    return rows[0]?.found === true;
  }
}

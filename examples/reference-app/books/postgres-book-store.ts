import type { Pool } from 'pg';
import { type RequestScope, requestQueries } from '../database/request-scope.js';
import type { Book, BookStore } from './book-store.js';

interface BookRow {
  readonly id: number;
  readonly title: string;
  readonly author: string;
  readonly internal_sku: string;
  readonly updated_at: Date;
}

const MAX_INTEGER = 2 ** 31 - 1;

function toBook(row: BookRow): Book {
  return {
    id: row.id,
    title: row.title,
    author: row.author,
    internalSku: row.internal_sku,
    updatedAt: row.updated_at,
  };
}

/**
 * Books in `<prefix>_books` (created and seeded by `database/migrations.ts`). The two hot reads are
 * named prepared statements: parsed and planned once per connection.
 */
export class PostgresBookStore implements BookStore {
  /** The request's transaction, or the pool. */
  private readonly db: ReturnType<typeof requestQueries>;
  private readonly sql;

  constructor(pool: Pool, prefix: string) {
    this.db = requestQueries(pool);
    const columns = 'id, title, author, internal_sku, updated_at';
    this.sql = {
      get: { name: `${prefix}_book_get`, text: `SELECT ${columns} FROM ${prefix}_books WHERE id = $1` },
      byAuthor: {
        name: `${prefix}_books_by_author`,
        text: `SELECT ${columns} FROM ${prefix}_books WHERE lower(author) = lower($1) ORDER BY id`,
      },
      all: { name: `${prefix}_books_all`, text: `SELECT ${columns} FROM ${prefix}_books ORDER BY id` },
    };
  }

  async list(filter: { readonly author?: string }): Promise<readonly Book[]> {
    const { rows } =
      filter.author === undefined
        ? await this.db().query<BookRow>(this.sql.all)
        : await this.db().query<BookRow>({ ...this.sql.byAuthor, values: [filter.author] });
    return rows.map(toBook);
  }

  async get(id: number, request?: RequestScope): Promise<Book | undefined> {
    // Ids are PostgreSQL integers: a larger one names no book (and must not reach the query).
    if (id > MAX_INTEGER) return undefined;
    const db = this.db(request);
    const { rows } = await db.query<BookRow>({ ...this.sql.get, values: [id] });
    return rows[0] === undefined ? undefined : toBook(rows[0]);
  }
}

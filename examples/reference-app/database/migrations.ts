import { idempotencyTableDdl } from 'rest-conventions/idempotency';
import { BOOK_SEED, SEEDED_AT } from '../books/book-store.js';
import { DEFAULT_USERS } from '../users/user-store.js';
import type { Migration } from './migration-runner.js';

/** A string as an SQL literal, for seed data only (never for request input: that is always a parameter). */
function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * The reference app's tables under `prefix`, in order. Text that is sorted or compared uses the `C`
 * collation, so PostgreSQL orders strings as the in-memory stores do (by code point).
 */
export function dataMigrations(prefix: string): readonly Migration[] {
  const books = BOOK_SEED.map(
    (book) =>
      `(${book.id}, ${literal(book.title)}, ${literal(book.author)}, ${literal(book.internalSku)}, ${literal(SEEDED_AT.toISOString())})`,
  );
  const users = DEFAULT_USERS.map(
    (u) =>
      `(${[u.id, u.givenName, u.familyName, u.email, u.accountType, u.updatedAt.toISOString(), u.passwordHash]
        .map(literal)
        .join(', ')})`,
  );
  return [
    {
      id: '0001-books',
      sql: `CREATE TABLE ${prefix}_books (
  id integer PRIMARY KEY,
  title text NOT NULL,
  author text NOT NULL,
  internal_sku text NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX ${prefix}_books_author ON ${prefix}_books (lower(author), id);
INSERT INTO ${prefix}_books (id, title, author, internal_sku, updated_at) VALUES
${books.join(',\n')};`,
    },
    {
      id: '0002-users',
      sql: `CREATE TABLE ${prefix}_users (
  id text PRIMARY KEY,
  given_name text NOT NULL,
  family_name text NOT NULL,
  email text NOT NULL,
  account_type text NOT NULL CHECK (account_type IN ('standard', 'premium')),
  updated_at timestamptz NOT NULL,
  password_hash text NOT NULL
);
INSERT INTO ${prefix}_users (id, given_name, family_name, email, account_type, updated_at, password_hash) VALUES
${users.join(',\n')};`,
    },
    {
      id: '0003-orders',
      // deleted_at marks a tombstone: a repeated DELETE answers 204 on every instance, after restarts.
      sql: `CREATE TABLE ${prefix}_orders (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_id text NOT NULL,
  book_id integer NOT NULL,
  quantity integer NOT NULL,
  version integer NOT NULL DEFAULT 1,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX ${prefix}_orders_owner ON ${prefix}_orders (owner_id, id) WHERE deleted_at IS NULL;`,
    },
    {
      id: '0004-standards',
      // One index per sort key, each ending with the id tie-breaker, for keyset pages.
      sql: `CREATE TABLE ${prefix}_standards (
  id text COLLATE "C" PRIMARY KEY,
  code text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  description text,
  status text NOT NULL CHECK (status IN ('draft', 'published', 'retired')),
  published_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  version integer NOT NULL DEFAULT 1,
  review_notes text NOT NULL,
  deleted_at timestamptz
);
CREATE UNIQUE INDEX ${prefix}_standards_code_live ON ${prefix}_standards (code) WHERE deleted_at IS NULL;
CREATE INDEX ${prefix}_standards_by_code ON ${prefix}_standards (code, id) WHERE deleted_at IS NULL;
CREATE INDEX ${prefix}_standards_by_name ON ${prefix}_standards (name, id) WHERE deleted_at IS NULL;
CREATE INDEX ${prefix}_standards_by_published ON ${prefix}_standards (published_at, id) WHERE deleted_at IS NULL;
CREATE INDEX ${prefix}_standards_by_created ON ${prefix}_standards (created_at, id) WHERE deleted_at IS NULL;`,
    },
    {
      id: '0005-order-payments',
      // An order's payments: read only through their order, so owned as it is.
      sql: `CREATE TABLE ${prefix}_order_payments (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES ${prefix}_orders (id),
  discount text,
  created_at timestamptz NOT NULL
);
CREATE INDEX ${prefix}_order_payments_order ON ${prefix}_order_payments (order_id, id);`,
    },
  ];
}

/**
 * The idempotency records table of the library's PostgreSQL store, as a migration. Its DDL is
 * idempotent, so a new version of it is a new id that runs it again on a database that had an
 * older one (version 2: the owner's index carries `bytes`).
 */
export function idempotencyMigration(table: string): Migration {
  return { id: `idempotency-records-2-${table}`, sql: idempotencyTableDdl(table) };
}

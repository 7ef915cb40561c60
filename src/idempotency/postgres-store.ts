import { createHash } from 'node:crypto';
import { type Context, contextKey } from '../http/types.js';
import {
  ANONYMOUS_OWNER,
  RECORD_OVERHEAD_BYTES,
  readStoreLimits,
  recordBytes,
  type StoreLimits,
} from './limits.js';
import {
  type ClaimOutcome,
  type IdempotencyStore,
  newToken,
  type StoredResponse,
  type StoreTransaction,
} from './store.js';

/**
 * Anything that runs a parameterized query the way `pg` does: a `pg` Pool, Client or PoolClient fits.
 * Structural, so that the published declarations do not import `pg` (an optional peer dependency).
 */
export interface Queryable {
  query<Row extends Record<string, unknown> = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<QueryResult<Row>>;
  /**
   * A named statement: `pg` prepares it once per connection and then only binds and executes it.
   * The store calls this form unless `preparedStatements` is false ({@link PostgresStoreOptions}).
   */
  query<Row extends Record<string, unknown> = Record<string, unknown>>(
    statement: NamedStatement,
  ): Promise<QueryResult<Row>>;
}

/** What a query answers (`pg`'s `QueryResult` fits). */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number | null;
  /** The command tag's verb: a `COMMIT` of an aborted transaction answers `ROLLBACK`. */
  command?: string;
}

/** A query with a name under which the server keeps it prepared (`pg`'s `QueryConfig` fits). */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
  readonly values: unknown[];
}

/** A connection checked out of a pool (a `pg` PoolClient fits): `release(true)` destroys it. */
export interface PooledConnection extends Queryable {
  release(destroy?: boolean): void;
  /**
   * True on a `pg` client made with `pipeline: true` (node-postgres's pipelining): it sends a query
   * without waiting for the answer to the one before. The transactional store then sends `BEGIN`
   * with the claim and the completion with `COMMIT`, two round trips fewer per keyed write.
   */
  readonly pipeline?: boolean;
  /** `pg` clients are event emitters: the store listens to `error` while it holds one. */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  off?(event: 'error', listener: (error: Error) => void): unknown;
}

/** A pool of connections (a `pg` Pool fits). */
export interface ConnectionPool extends Queryable {
  connect(): Promise<PooledConnection>;
  readonly totalCount: number;
}

/**
 * Options of {@link postgresStore}. Of the budgets ({@link StoreLimits}) the per-owner ones are
 * enforced (`ownerMaxEntries`, `ownerMaxBytes`); `maxEntries` and `maxBytes` are not (counting a
 * large table on every claim costs too much): the table is bounded by its owners' quotas, and
 * `deleteExpired` reclaims rows.
 */
export interface PostgresStoreOptions extends Pick<StoreLimits, 'ownerMaxEntries' | 'ownerMaxBytes'> {
  /** A `pg` Pool (or Client) the application created; the store never closes it. */
  readonly pool: Queryable | ConnectionPool;
  /** Table name, optionally schema-qualified (default `idempotency_records`). */
  readonly table?: string;
  /**
   * Claim in a transaction, run the handler in it with its client under
   * {@link IDEMPOTENCY_TRANSACTION}, and complete the record in it: the claim, the handler's writes
   * and the record commit or roll back together, in one commit (docs/idempotency.md, "PostgreSQL:
   * the record in the handler's transaction"). Needs a `Pool`, and the request's context passed to
   * `claim` (the middleware does); a claim without it is made outside. Default false.
   */
  readonly transactional?: boolean;
  /**
   * Send the store's statements as named prepared statements (default true): the server parses and
   * plans each once per connection instead of on every request, a third of the claim's cost in
   * PostgreSQL CPU (docs/idempotency.md, "PostgreSQL"). Set false behind a pooler that cannot keep
   * prepared statements (PgBouncer in transaction mode before 1.21), or with a `pool` that takes
   * only the `(text, values)` form.
   */
  readonly preparedStatements?: boolean;
  /** Clock in milliseconds (default `Date.now`); tests pass a fake one. */
  readonly now?: () => number;
}

/** A PostgreSQL {@link IdempotencyStore}, with the table DDL and maintenance helpers. */
export interface PostgresIdempotencyStore extends IdempotencyStore {
  /** The table name in use. */
  readonly table: string;
  /** Create the table and its index if they do not exist ({@link idempotencyTableDdl}). */
  migrate(): Promise<void>;
  /** Delete records whose lease or retention ran out; returns how many. Run it periodically. */
  deleteExpired(): Promise<number>;
}

/**
 * The transaction client a handler writes with when the store is `transactional`: its writes and
 * the idempotency record commit together. Absent when the request carries no key.
 *
 * @example
 * const db = ctx.get(IDEMPOTENCY_TRANSACTION) ?? pool;
 * await db.query('INSERT INTO orders ...');
 */
export const IDEMPOTENCY_TRANSACTION = contextKey<PooledConnection>('idempotency transaction');

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}(?:\.[a-z_][a-z0-9_]{0,62})?$/;

/**
 * The DDL of the records table: one row per scoped key (the primary key makes the claim atomic).
 * `expires_at` (ms since the epoch) is the lease end while in progress and the retention end once
 * completed; a row past it counts as absent and is taken over by the next claim. `owner` and `bytes`
 * (as counted by `recordBytes`) serve the per-owner quota; the DDL adds them to an older table. The
 * owner's index carries `bytes`, so the claim sums an owner's usage from the index alone (an
 * index-only scan: 0.16 ms for 800 records against 1.7 ms through the table's pages); it replaces
 * the older `<table>_owner` index.
 *
 * @example
 * await pool.query(idempotencyTableDdl('idempotency_records'));
 */
export function idempotencyTableDdl(table = 'idempotency_records'): string {
  checkTable(table);
  const name = table.replace('.', '_');
  const index = `${name}_expires_at`;
  // An index lives in its table's schema: dropping one names that schema.
  const schema = table.includes('.') ? `${table.split('.')[0]}.` : '';
  return `CREATE TABLE IF NOT EXISTS ${table} (
  scope_key   text PRIMARY KEY,
  fingerprint text NOT NULL,
  token       text NOT NULL,
  state       text NOT NULL CHECK (state IN ('in-progress', 'completed')),
  expires_at  bigint NOT NULL,
  status      integer,
  headers     jsonb,
  body        bytea,
  owner       text NOT NULL DEFAULT '',
  bytes       integer NOT NULL DEFAULT 0
);
ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS owner text NOT NULL DEFAULT '';
ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS bytes integer NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS ${index} ON ${table} (expires_at);
CREATE INDEX IF NOT EXISTS ${name}_owner_usage ON ${table} (owner, expires_at) INCLUDE (bytes);
DROP INDEX IF EXISTS ${schema}${name}_owner;`;
}

function checkTable(table: string): void {
  if (!IDENTIFIER.test(table)) {
    throw new TypeError(
      `postgresStore: table must be a lower-case SQL identifier (schema.table allowed), got ${table}`,
    );
  }
}

/**
 * A PostgreSQL {@link IdempotencyStore}, safe with several app instances: the claim is one
 * statement (the live record, the owner's usage and an `INSERT ... ON CONFLICT DO UPDATE ... WHERE
 * expired`), and every later write is fenced by the claim's token. Per owner at most
 * `ownerMaxEntries` live records and `ownerMaxBytes` (defaults 1 000 and 4 MiB): past them a claim
 * is refused (`full`), never by dropping a live record. Concurrent claims of one owner can each
 * see room, so the quota may be passed by the owner's concurrent claims. With `transactional`, the
 * claim opens the handler's transaction and a concurrent claim of a key held by an open one is in
 * progress at once. The application passes its own `pg` pool; no `pg` type is imported.
 *
 * @example
 * const store = postgresStore({ pool, transactional: true });
 * await store.migrate();
 */
export function postgresStore(options: PostgresStoreOptions): PostgresIdempotencyStore {
  const { pool } = options;
  if (pool === null || typeof pool !== 'object' || typeof pool.query !== 'function') {
    throw new TypeError('postgresStore: `pool` must be a pg Pool or Client');
  }
  const table = options.table ?? 'idempotency_records';
  checkTable(table);
  const transactional = options.transactional ?? false;
  if (transactional && !isPool(pool)) throw new TypeError('postgresStore: `transactional` needs a pg Pool');
  const now = () => Math.floor((options.now ?? Date.now)());
  const limits = readStoreLimits('postgresStore', options, {
    maxEntries: Number.MAX_SAFE_INTEGER,
    maxBytes: Number.MAX_SAFE_INTEGER,
  });

  const sql = statements({
    claim: claimText(table, false),
    claimLocked: claimText(table, true),
    renew: `UPDATE ${table} SET expires_at = $3::bigint + $4::bigint
      WHERE scope_key = $1 AND token = $2 AND state = 'in-progress' AND expires_at > $3::bigint`,
    complete: `UPDATE ${table}
      SET state = 'completed', expires_at = $3::bigint + $4::bigint, status = $5, headers = $6::jsonb, body = $7,
        bytes = bytes + $8::int
      WHERE scope_key = $1 AND token = $2 AND state = 'in-progress' AND expires_at > $3::bigint`,
    // The record was inserted by this very transaction, which nobody else can take over: no lease
    // to check, however long the handler ran.
    completeOwn: `UPDATE ${table}
      SET state = 'completed', expires_at = $3::bigint + $4::bigint, status = $5, headers = $6::jsonb, body = $7,
        bytes = bytes + $8::int
      WHERE scope_key = $1 AND token = $2 AND state = 'in-progress'`,
    // The completion sent with the COMMIT behind it (a pipelining client): finding no row, it must
    // not let that COMMIT land, so it divides by the count of rows it updated. Division by zero
    // aborts the transaction, and a COMMIT of an aborted transaction rolls it back.
    completeOwnOrAbort: `WITH done AS (UPDATE ${table}
        SET state = 'completed', expires_at = $3::bigint + $4::bigint, status = $5, headers = $6::jsonb, body = $7,
          bytes = bytes + $8::int
        WHERE scope_key = $1 AND token = $2 AND state = 'in-progress'
        RETURNING 1)
      SELECT 1 / count(*)::int AS completed FROM done`,
    release: `DELETE FROM ${table}
      WHERE scope_key = $1 AND token = $2 AND state = 'in-progress' AND expires_at > $3::bigint`,
    deleteExpired: `DELETE FROM ${table} WHERE expires_at <= $1::bigint`,
  });
  const prepared = options.preparedStatements ?? true;
  const run = <Row extends Record<string, unknown> = Record<string, unknown>>(
    db: Queryable,
    statement: Statement,
    values: unknown[],
  ) =>
    prepared
      ? db.query<Row>({ name: statement.name, text: statement.text, values })
      : db.query<Row>(statement.text, values);

  /** The completion's parameters. May throw (the clock is the application's): before anything is sent. */
  const completionValues = (key: string, token: string, response: StoredResponse, retentionMs: number) => [
    key,
    token,
    now(),
    Math.ceil(retentionMs),
    response.status,
    JSON.stringify(response.headers),
    Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength),
    recordBytes('', '', response) - RECORD_OVERHEAD_BYTES,
  ];
  const complete = async (
    db: Queryable,
    statement: Statement,
    key: string,
    token: string,
    response: StoredResponse,
    retentionMs: number,
  ): Promise<boolean> => {
    const result = await run(db, statement, completionValues(key, token, response, retentionMs));
    return result.rowCount === 1;
  };

  /**
   * Claims on `db` with `statement` until an outcome is certain. With `claimLocked`, a key whose
   * advisory lock another transaction holds is in progress there (its row is not visible yet).
   */
  const claimOn = async (
    db: Queryable,
    statement: Statement,
    key: string,
    fingerprint: string,
    leaseMs: number,
    owner: string,
  ): Promise<ClaimOutcome> => {
    const bytes = recordBytes(key, fingerprint);
    // A row inserted by a concurrent claim after this statement's snapshot: claim again.
    for (;;) {
      const at = now();
      const token = newToken();
      const { rows } = await run<ClaimRow>(db, statement, [
        key,
        fingerprint,
        token,
        at,
        Math.ceil(leaseMs),
        owner,
        bytes,
        limits.ownerMaxEntries,
        limits.ownerMaxBytes,
      ]);
      const row = rows[0] as ClaimRow;
      if (row.token === token) return { kind: 'claimed', token };
      if (row.state !== null) {
        if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
        if (row.state !== 'completed') return { kind: 'in-progress' };
        return {
          kind: 'completed',
          response: {
            status: row.status ?? 500,
            headers: JSON.parse(row.headers ?? '{}') as Record<string, string>,
            body: new Uint8Array(row.body ?? Buffer.alloc(0)),
          },
        };
      }
      if (row.locked === false) return { kind: 'in-progress' };
      if (row.entries >= limits.ownerMaxEntries || Number(row.bytes) + bytes > limits.ownerMaxBytes) {
        const earliest = row.earliest === null ? at + 1 : Number(row.earliest);
        return { kind: 'full', scope: 'owner', retryAfterMs: Math.max(1, earliest - at) };
      }
    }
  };

  const transactions = transactional ? openTransactions(pool as ConnectionPool) : undefined;

  /**
   * Completes the record of the claim made in `tx` and commits `tx`, or rolls it back when the
   * record was not completed. On a pipelining client the COMMIT goes with the completion.
   */
  const completeAndCommit = async (
    tx: OpenTransaction,
    key: string,
    token: string,
    response: StoredResponse,
    retentionMs: number,
  ): Promise<boolean> => {
    if (!tx.open) return false;
    const end = (transactions as Transactions).end;
    let values: unknown[];
    try {
      values = completionValues(key, token, response, retentionMs);
    } catch (error) {
      await end(tx, 'ROLLBACK').catch(() => undefined);
      throw error;
    }
    if (tx.client.pipeline !== true) {
      let completed: boolean;
      try {
        completed = (await run(tx.client, sql.completeOwn, values)).rowCount === 1;
      } catch (error) {
        await end(tx, 'ROLLBACK').catch(() => undefined);
        throw error;
      }
      await end(tx, completed ? 'COMMIT' : 'ROLLBACK');
      return completed;
    }
    // Both statements are written before either answer is read: `run` and `end` each send their
    // query as they are called, with nothing awaited before.
    const [completion, commit] = await Promise.allSettled([
      run(tx.client, sql.completeOwnOrAbort, values),
      end(tx, 'COMMIT'),
    ]);
    if (commit.status === 'rejected') throw commit.reason;
    if (completion.status === 'fulfilled') return completion.value.rowCount === 1;
    // A completion that ran and failed aborted the transaction: the COMMIT rolled back.
    if (commit.value !== 'COMMIT') {
      if (isDivisionByZero(completion.reason)) return false;
      throw completion.reason;
    }
    // The completion never reached the server (refused by the client), yet the COMMIT did: the claim
    // and the handler's writes are committed, so the record is completed now, outside.
    return complete(pool, sql.completeOwn, key, token, response, retentionMs);
  };

  const store: PostgresIdempotencyStore = {
    table,
    async claim(key, fingerprint, leaseMs, owner = ANONYMOUS_OWNER, ctx?: Context): Promise<ClaimOutcome> {
      if (transactions === undefined || ctx === undefined)
        return claimOn(pool, sql.claim, key, fingerprint, leaseMs, owner);
      // The claim opens the handler's transaction: the record, the handler's writes and the
      // completion commit at once (docs/idempotency.md, "PostgreSQL: the record in the handler's
      // transaction").
      return transactions.claim(ctx, (client) =>
        claimOn(client, sql.claimLocked, key, fingerprint, leaseMs, owner),
      );
    },
    async renew(key, token, leaseMs) {
      const held = transactions?.holding(token);
      if (held !== undefined) return held;
      return (await run(pool, sql.renew, [key, token, now(), Math.ceil(leaseMs)])).rowCount === 1;
    },
    async complete(key, token, response, retentionMs) {
      const unbegun = transactions?.takeUnbegun(token);
      if (unbegun === undefined) return complete(pool, sql.complete, key, token, response, retentionMs);
      // The claim opened a transaction that no `begin` took (a wrapper that passes the context to
      // `claim` but has no `begin`): the record is completed and committed in it, so its connection
      // is not held for ever and the key not blocked until a restart.
      return completeAndCommit(unbegun, key, token, response, retentionMs);
    },
    async release(key, token) {
      const released = await transactions?.release(token);
      if (released !== undefined) return released;
      return (await run(pool, sql.release, [key, token, now()])).rowCount === 1;
    },
    async migrate() {
      await pool.query(idempotencyTableDdl(table));
    },
    async deleteExpired() {
      return (await run(pool, sql.deleteExpired, [now()])).rowCount ?? 0;
    },
  };

  if (transactions !== undefined) {
    store.begin = async (ctx: Context): Promise<StoreTransaction> => {
      const tx = await transactions.begin(ctx);
      ctx.set(IDEMPOTENCY_TRANSACTION, tx.client);
      const opened: StoreTransaction = {
        complete: (key, token, response, retentionMs) => {
          if (tx.token === undefined)
            return complete(tx.client, sql.complete, key, token, response, retentionMs);
          if (tx.released || token !== tx.token) return Promise.resolve(false);
          return complete(tx.client, sql.completeOwn, key, token, response, retentionMs);
        },
        commit: async () => {
          await transactions.end(tx, 'COMMIT');
        },
        rollback: async () => {
          await transactions.end(tx, 'ROLLBACK');
        },
      };
      // Only on a pipelining client, where it saves a round trip, and only for the claim's own
      // transaction: a record claimed outside needs the lease-checked completion.
      if (tx.token !== undefined && tx.client.pipeline === true) {
        opened.completeAndCommit = async (key, token, response, retentionMs) => {
          if (tx.released || token !== tx.token) {
            await transactions.end(tx, 'ROLLBACK');
            return false;
          }
          return completeAndCommit(tx, key, token, response, retentionMs);
        };
      }
      return opened;
    };
  }
  return store;
}

/**
 * The claim statement: the live record under the key, the owner's live usage, and the insert (or
 * the takeover of an expired row) when there is no live record and the owner's quota has room; one
 * round trip. `locked` (a claim inside the handler's transaction) first takes a transaction-scoped
 * advisory lock on the key, so a concurrent claim of the same key answers at once instead of
 * waiting on the uncommitted row.
 */
function claimText(table: string, locked: boolean): string {
  // Seeded, so that the key's lock is not the one of anything else hashed with the default seed 0
  // (an application's own advisory locks, such as a migration runner's).
  const lock = locked
    ? `locked AS (SELECT pg_try_advisory_xact_lock(hashtextextended($1, ${ADVISORY_LOCK_SEED})) AS got), `
    : '';
  return `WITH ${lock}existing AS (
        SELECT state, fingerprint, status, headers::text AS headers, body FROM ${table}
        WHERE scope_key = $1 AND expires_at > $4::bigint
      ), usage AS (
        SELECT count(*) AS entries, coalesce(sum(bytes), 0) AS bytes, min(expires_at) AS earliest
        FROM ${table} WHERE owner = $6 AND expires_at > $4::bigint
      ), inserted AS (
        INSERT INTO ${table} AS r (scope_key, fingerprint, token, state, expires_at, owner, bytes)
        SELECT $1, $2, $3, 'in-progress', $4::bigint + $5::bigint, $6, $7::int FROM usage${locked ? ', locked' : ''}
        WHERE NOT EXISTS (SELECT 1 FROM existing)${locked ? ' AND locked.got' : ''}
          AND usage.entries < $8::bigint AND usage.bytes + $7::int <= $9::bigint
        ON CONFLICT (scope_key) DO UPDATE
          SET fingerprint = excluded.fingerprint, token = excluded.token, state = 'in-progress',
              expires_at = excluded.expires_at, status = NULL, headers = NULL, body = NULL,
              owner = excluded.owner, bytes = excluded.bytes
          WHERE r.expires_at <= $4::bigint
        RETURNING r.token
      )
      SELECT (SELECT token FROM inserted) AS token, ${locked ? 'l.got' : 'NULL::boolean'} AS locked,
        e.state, e.fingerprint, e.status, e.headers, e.body,
        u.entries::int AS entries, u.bytes::bigint::text AS bytes, u.earliest::text AS earliest
      FROM usage u ${locked ? 'CROSS JOIN locked l ' : ''}LEFT JOIN existing e ON true`;
}

/** `hashtextextended`'s seed argument for the key's advisory lock: "idem" in ASCII. */
const ADVISORY_LOCK_SEED = 0x6964656d;

/** A transaction of the handler's, on a client checked out of the pool. */
interface OpenTransaction {
  readonly client: PooledConnection;
  /** The token of the claim made in it; undefined when it was opened after the claim. */
  readonly token: string | undefined;
  /** True once the claim was released while the handler ran: the completion must not land. */
  released: boolean;
  open: boolean;
}

/**
 * The transactions of the transactional store. A claim opens one and leaves it for `begin(ctx)` of
 * the same request; until then a release rolls it back, afterwards a release only fences its
 * completion (the handler still writes through the client, which must stay in the transaction).
 */
function openTransactions(pool: ConnectionPool) {
  const claimedFor = new WeakMap<Context, OpenTransaction>();
  const byToken = new Map<string, { readonly tx: OpenTransaction; readonly ctx: Context }>();

  // pg-pool listens to the `error` event of idle clients only: a held client whose connection
  // breaks (PostgreSQL restarted mid-handler) would emit it with no listener and end the process.
  // The failure reaches the store and the handler through their queries instead.
  const ignore = () => {};
  const checkOut = async (): Promise<PooledConnection> => {
    const client = await pool.connect();
    client.on?.('error', ignore);
    return client;
  };
  /** Back to the pool, or destroyed (`destroy`: a connection in an unknown state is never reused). */
  const giveBack = (client: PooledConnection, destroy = false): void => {
    if (!destroy) client.off?.('error', ignore);
    client.release(destroy);
  };
  const open = async (): Promise<PooledConnection> => {
    const client = await checkOut();
    try {
      await client.query('BEGIN');
    } catch (error) {
      giveBack(client, true);
      throw error;
    }
    return client;
  };
  /**
   * `BEGIN`, then `first` on the client. A pipelining client sends the two together: `first` sends
   * its statement as it is called. Should `BEGIN` fail alone, that statement ran outside any
   * transaction; the error is thrown all the same and the connection destroyed (a claim left that
   * way is taken over after its lease, as after a crash).
   */
  const beginWith = async <T>(client: PooledConnection, first: (client: PooledConnection) => Promise<T>) => {
    if (client.pipeline !== true) {
      await client.query('BEGIN');
      return first(client);
    }
    const [begun, done] = await Promise.allSettled([client.query('BEGIN'), first(client)]);
    if (begun.status === 'rejected') throw begun.reason;
    if (done.status === 'rejected') throw done.reason;
    return done.value;
  };
  /** Ends `tx` with `statement`; resolves with the command PostgreSQL answered (see `QueryResult`). */
  const end = async (tx: OpenTransaction, statement: 'COMMIT' | 'ROLLBACK'): Promise<string | undefined> => {
    if (!tx.open) return undefined;
    tx.open = false;
    if (tx.token !== undefined) byToken.delete(tx.token);
    let command: string | undefined;
    try {
      command = (await tx.client.query(statement)).command;
    } catch (error) {
      giveBack(tx.client, true);
      throw error;
    }
    giveBack(tx.client);
    return command;
  };

  return {
    end,
    async claim(ctx: Context, claimOn: (client: PooledConnection) => Promise<ClaimOutcome>) {
      const client = await checkOut();
      let outcome: ClaimOutcome;
      try {
        outcome = await beginWith(client, claimOn);
      } catch (error) {
        giveBack(client, true);
        throw error;
      }
      const tx: OpenTransaction = {
        client,
        token: outcome.kind === 'claimed' ? outcome.token : undefined,
        released: false,
        open: true,
      };
      if (tx.token === undefined) {
        await end(tx, 'ROLLBACK');
        return outcome;
      }
      claimedFor.set(ctx, tx);
      byToken.set(tx.token, { tx, ctx });
      return outcome;
    },
    /** The transaction the request's claim opened, else a new one. */
    async begin(ctx: Context): Promise<OpenTransaction> {
      const claimed = claimedFor.get(ctx);
      claimedFor.delete(ctx);
      if (claimed?.open) return claimed;
      return { client: await open(), token: undefined, released: false, open: true };
    },
    /** The open transaction of the claim `token` if no `begin` took it (then it is this caller's). */
    takeUnbegun(token: string): OpenTransaction | undefined {
      const held = byToken.get(token);
      if (held === undefined || claimedFor.get(held.ctx) !== held.tx || !held.tx.open) return undefined;
      claimedFor.delete(held.ctx);
      return held.tx;
    },
    /** Whether the claim `token` still holds its key, when a transaction of this store made it. */
    holding(token: string): boolean | undefined {
      const held = byToken.get(token);
      return held === undefined ? undefined : !held.tx.released;
    },
    /** Releases the claim `token` when a transaction of this store made it; else undefined. */
    async release(token: string): Promise<boolean | undefined> {
      const held = byToken.get(token);
      if (held === undefined) return undefined;
      if (claimedFor.get(held.ctx) === held.tx) {
        // Not handed to the handler yet (a claim that came back too late): nothing else uses it.
        claimedFor.delete(held.ctx);
        await end(held.tx, 'ROLLBACK');
        return true;
      }
      if (held.tx.released) return false;
      held.tx.released = true;
      return true;
    },
  };
}

type Transactions = ReturnType<typeof openTransactions>;

/** Whether `error` is PostgreSQL's division by zero (SQLSTATE 22012): see `completeOwnOrAbort`. */
function isDivisionByZero(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '22012';
}

type ClaimRow = {
  readonly token: string | null;
  /** Whether the claim got the key's advisory lock; null when it did not ask for it. */
  readonly locked: boolean | null;
  readonly state: string | null;
  readonly fingerprint: string | null;
  readonly entries: number;
  readonly bytes: string;
  readonly earliest: string | null;
  readonly status: number | null;
  readonly headers: string | null;
  readonly body: Buffer | null;
};

/** A statement of the store: its text, and the name it is prepared under. */
interface Statement {
  readonly name: string;
  readonly text: string;
}

/**
 * Names each statement after a hash of its text: the same name for the same text in every store on
 * one pool (`pg` refuses one name for two texts), and short enough for PostgreSQL's 63-byte
 * identifiers whatever the table's name.
 */
function statements<K extends string>(texts: Record<K, string>): Record<K, Statement> {
  const named = {} as Record<K, Statement>;
  for (const [key, text] of Object.entries<string>(texts)) {
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 24);
    named[key as K] = { name: `rc_idempotency_${digest}`, text };
  }
  return named;
}

function isPool(value: PostgresStoreOptions['pool']): value is ConnectionPool {
  return (
    typeof (value as ConnectionPool).connect === 'function' &&
    typeof (value as ConnectionPool).totalCount === 'number'
  );
}

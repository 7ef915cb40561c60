import { ANONYMOUS_OWNER, claimBytes, readStoreLimits, untilOwnerRoom } from '../limits.js';
import { type ClaimOutcome, newToken, type StoredResponse, type StoreTransaction } from '../store.js';
import { completions } from './completions.js';
import { isPool } from './connections.js';
import { checkTable, idempotencyTableDdl } from './ddl.js';
import {
  type ClaimRow,
  completionParameters,
  type RunStatement,
  type Statement,
  storeStatements,
} from './sql.js';
import { openTransactions } from './transactions.js';
import type {
  ConnectionPool,
  PostgresIdempotencyStore,
  PostgresIdempotencyStoreOptions,
  Queryable,
} from './types.js';

export { idempotencyTableDdl } from './ddl.js';
export type {
  ConnectionPool,
  NamedStatement,
  PooledConnection,
  PostgresIdempotencyStore,
  PostgresIdempotencyStoreOptions,
  Queryable,
  QueryResult,
} from './types.js';

/**
 * A PostgreSQL {@link IdempotencyStore}, safe with several app instances: the claim is one
 * statement (the live record, the owner's usage and an `INSERT ... ON CONFLICT DO UPDATE ... WHERE
 * expired`), and every later write is fenced by the claim's token. Per owner at most
 * `ownerMaxEntries` live records and `ownerMaxBytes` (defaults 1 000 and 4 MiB): past them a claim
 * is refused (`full`), never by dropping a live record. Concurrent claims of one owner can each
 * see room, so the quota may be passed by the owner's concurrent claims; its completions take turns
 * (an advisory lock on the owner), so together they never take the room promised to its later
 * claims (docs/idempotency.md, "Budgets"). With `transactional`, the
 * claim opens the handler's transaction and a concurrent claim of a key held by an open one is in
 * progress at once. The application passes its own `pg` pool; no `pg` type is imported.
 *
 * @example
 * const store = postgresIdempotencyStore({ pool, transactional: true });
 * await store.migrate();
 */
export function postgresIdempotencyStore(options: PostgresIdempotencyStoreOptions): PostgresIdempotencyStore {
  const { pool } = options;
  if (pool === null || typeof pool !== 'object' || typeof pool.query !== 'function') {
    throw new TypeError('postgresIdempotencyStore: `pool` must be a pg Pool or Client');
  }
  const table = options.table ?? 'idempotency_records';
  checkTable(table);
  const transactional = options.transactional ?? false;
  if (transactional && !isPool(pool))
    throw new TypeError('postgresIdempotencyStore: `transactional` needs a pg Pool');
  const now = () => Math.floor((options.now ?? Date.now)());
  const limits = readStoreLimits('postgresIdempotencyStore', options, {
    maxEntries: Number.MAX_SAFE_INTEGER,
    maxBytes: Number.MAX_SAFE_INTEGER,
  });

  const sql = storeStatements(table);
  const prepared = options.preparedStatements ?? true;
  const run: RunStatement = (db, statement, values) =>
    prepared
      ? db.query({ name: statement.name, text: statement.text, values })
      : db.query(statement.text, values);

  /** The completion's parameters. May throw (the clock is the application's): before anything is sent. */
  const completionValues = (key: string, token: string, response: StoredResponse, retentionMs: number) =>
    completionParameters({ key, token, at: now(), retentionMs, response, limits });
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
    const bytes = claimBytes(key, fingerprint);
    let rechecks = 0;
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
        // When the owner's own records leave room; room already (a record expired or was released
        // since the statement's snapshot): claim again.
        const held = await run<{ expires_at: string; bytes: number }>(db, sql.ownerRecords, [owner, at]);
        const records = held.rows.map((r) => ({ expiresAt: Number(r.expires_at), bytes: r.bytes }));
        const retryAfterMs = untilOwnerRoom(records, bytes, limits, at);
        if (retryAfterMs === 0 && ++rechecks < 3) continue;
        return retryAfterMs === undefined
          ? { kind: 'full', scope: 'owner' }
          : { kind: 'full', scope: 'owner', retryAfterMs };
      }
    }
  };

  const transactions = transactional
    ? openTransactions(pool as ConnectionPool, ownerMaxTransactions(options, pool as ConnectionPool))
    : undefined;

  const { completeIn, completeOutside, completeAndCommit } = completions({
    pool,
    sql,
    run,
    values: completionValues,
    transactions,
  });

  const store: PostgresIdempotencyStore = {
    table,
    async claim(key, fingerprint, leaseMs, owner = ANONYMOUS_OWNER, options): Promise<ClaimOutcome> {
      if (transactions === undefined || options?.withTransaction !== true)
        return claimOn(pool, sql.claim, key, fingerprint, leaseMs, owner);
      // The claim opens the handler's transaction, kept under the claim's token for `begin`: the
      // record, the handler's writes and the completion commit at once (docs/idempotency.md,
      // "PostgreSQL: the record in the handler's transaction").
      return transactions.claim(owner, (client) =>
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
      if (unbegun === undefined) return completeOutside(sql.complete, key, token, response, retentionMs);
      // The claim opened a transaction that no `begin` took (a wrapper that claims `withTransaction`
      // but has no `begin`): the record is completed and committed in it, so its connection is not
      // held for ever and the key not blocked until a restart.
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
    store.begin = async (token: string): Promise<StoreTransaction> => {
      const tx = await transactions.begin(token);
      const opened: StoreTransaction = {
        connection: tx.client,
        complete: async (key, token, response, retentionMs) => {
          if (tx.released || (tx.token !== undefined && token !== tx.token)) return false;
          // A record claimed outside this transaction needs the lease-checked completion.
          const statement = tx.token === undefined ? sql.complete : sql.completeOwn;
          return completeIn(
            tx.client,
            statement,
            key,
            token,
            completionValues(key, token, response, retentionMs),
          );
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
 * The open claim transactions one owner may hold: the option, else half the pool's connections (a
 * `pg` Pool's `options.max`, 10 unless set), at least one.
 */
function ownerMaxTransactions(options: PostgresIdempotencyStoreOptions, pool: ConnectionPool): number {
  const given = options.ownerMaxTransactions;
  if (given !== undefined) {
    if (!Number.isSafeInteger(given) || given < 1)
      throw new TypeError(
        `postgresIdempotencyStore: ownerMaxTransactions must be a positive integer, got ${given}`,
      );
    return given;
  }
  return Math.max(1, Math.floor((pool.options?.max ?? 10) / 2));
}

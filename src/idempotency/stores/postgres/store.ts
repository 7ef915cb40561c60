import { ANONYMOUS_OWNER, claimBytes, readStoreLimits, untilOwnerRoom } from '../limits.js';
import { type ClaimOutcome, newToken, type StoredResponse, type StoreTransaction } from '../store.js';
import { checkOut, giveBack, isPool } from './connections.js';
import { checkTable, idempotencyTableDdl } from './ddl.js';
import {
  type ClaimRow,
  completionParameters,
  isDivisionByZero,
  type Statement,
  storeStatements,
} from './sql.js';
import { type OpenTransaction, openTransactions, type Transactions } from './transactions.js';
import type {
  ConnectionPool,
  PooledConnection,
  PostgresIdempotencyStore,
  PostgresIdempotencyStoreOptions,
  Queryable,
} from './types.js';

export { idempotencyTableDdl } from './ddl.js';
export type {
  ConnectionPool,
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
  const run = <Row extends Record<string, unknown> = Record<string, unknown>>(
    db: Queryable,
    statement: Statement,
    values: unknown[],
  ) =>
    prepared
      ? db.query<Row>({ name: statement.name, text: statement.text, values })
      : db.query<Row>(statement.text, values);

  /** The completion's parameters. May throw (the clock is the application's): before anything is sent. */
  const completionValues = (key: string, token: string, response: StoredResponse, retentionMs: number) =>
    completionParameters({ key, token, at: now(), retentionMs, response, limits });
  /**
   * Completes with `statement` on `client`, inside a transaction that client holds: the owner's
   * completion lock first (`lockOwner`, held until the transaction ends), then the completion; a
   * pipelining client sends both at once.
   */
  const completeIn = async (
    client: PooledConnection,
    statement: Statement,
    key: string,
    token: string,
    values: unknown[],
  ): Promise<boolean> => {
    if (client.pipeline !== true) {
      await run(client, sql.lockOwner, [key, token]);
      return (await run(client, statement, values)).rowCount === 1;
    }
    const [locked, completed] = await Promise.allSettled([
      run(client, sql.lockOwner, [key, token]),
      run(client, statement, values),
    ]);
    if (locked.status === 'rejected') throw locked.reason;
    if (completed.status === 'rejected') throw completed.reason;
    return completed.value.rowCount === 1;
  };
  /**
   * Completes with `statement` outside any transaction. With a pool, in a short transaction of its
   * own on one connection (`BEGIN`, the owner's lock, the completion, `COMMIT`, queued together), so
   * that an owner's completions are serialized as in {@link completeIn}. Given one connection or a
   * hand-written `Queryable`, in the one statement: concurrent completions of one owner may then
   * each keep an answer whole that together pass the owner's bytes.
   */
  const completeOutside = async (
    statement: Statement,
    key: string,
    token: string,
    response: StoredResponse,
    retentionMs: number,
  ): Promise<boolean> => {
    const values = completionValues(key, token, response, retentionMs);
    if (!isPool(pool)) return (await run(pool, statement, values)).rowCount === 1;
    const client = await checkOut(pool);
    let settled = false;
    try {
      let completed: boolean;
      if (client.pipeline !== true) {
        await client.query('BEGIN');
        completed = await completeIn(client, statement, key, token, values);
        await client.query('COMMIT');
      } else {
        const steps = await Promise.allSettled([
          client.query('BEGIN'),
          completeIn(client, statement, key, token, values),
          client.query('COMMIT'),
        ]);
        for (const step of steps) if (step.status === 'rejected') throw step.reason;
        completed = (steps[1] as PromiseFulfilledResult<boolean>).value;
      }
      settled = true;
      return completed;
    } finally {
      giveBack(client, !settled);
    }
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
        completed = await completeIn(tx.client, sql.completeOwn, key, token, values);
      } catch (error) {
        await end(tx, 'ROLLBACK').catch(() => undefined);
        throw error;
      }
      await end(tx, completed ? 'COMMIT' : 'ROLLBACK');
      return completed;
    }
    // All three statements are written before any answer is read: `completeIn` and `end` each send
    // their queries as they are called, with nothing awaited before.
    const [completion, commit] = await Promise.allSettled([
      completeIn(tx.client, sql.completeOwnOrAbort, key, token, values),
      end(tx, 'COMMIT'),
    ]);
    if (commit.status === 'rejected') throw commit.reason;
    if (completion.status === 'fulfilled') return completion.value;
    // A completion that ran and failed aborted the transaction: the COMMIT rolled back.
    if (commit.value !== 'COMMIT') {
      if (isDivisionByZero(completion.reason)) return false;
      throw completion.reason;
    }
    // The completion never reached the server (refused by the client), yet the COMMIT did: the claim
    // and the handler's writes are committed, so the record is completed now, outside.
    return completeOutside(sql.completeOwn, key, token, response, retentionMs);
  };

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

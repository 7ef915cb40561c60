import type { StoredResponse } from '../store.js';
import { checkOut, giveBack, isPool } from './connections.js';
import { isDivisionByZero, type RunStatement, type Statement, type StoreStatements } from './sql.js';
import type { OpenTransaction, Transactions } from './transactions.js';
import type { ConnectionPool, PooledConnection, Queryable } from './types.js';

/** What {@link completions} completes with: the store's pool, statements and parameters. */
export interface CompletionContext {
  readonly pool: Queryable | ConnectionPool;
  readonly sql: StoreStatements;
  readonly run: RunStatement;
  /** The completion's parameters. May throw (the clock is the application's): before anything is sent. */
  readonly values: (key: string, token: string, response: StoredResponse, retentionMs: number) => unknown[];
  /** The transactional store's transactions; undefined otherwise. */
  readonly transactions: Transactions | undefined;
}

/**
 * How the PostgreSQL store completes a record, on each connection it may be claimed on: in the
 * handler's transaction, in the claim's own one with its `COMMIT`, or outside any. Each takes the
 * owner's completion lock first (`lockOwner` in sql.ts), so one owner's completions take turns.
 */
export function completions(context: CompletionContext) {
  const { pool, sql, run, transactions } = context;
  const completionValues = context.values;

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

  return { completeIn, completeOutside, completeAndCommit };
}

import type { ClaimOutcome } from '../store.js';
import { checkOut as checkOutOf, giveBack } from './connections.js';
import { ownerShares } from './owner-shares.js';
import type { ConnectionPool, PooledConnection } from './types.js';

/** A transaction of the handler's, on a client checked out of the pool. */
export interface OpenTransaction {
  readonly client: PooledConnection;
  /** The owner whose share of the pool it holds (a claim's); undefined when `begin` opened it. */
  readonly owner?: string | undefined;
  /** The token of the claim made in it; undefined when it was opened after the claim. */
  readonly token: string | undefined;
  /** True once the claim was released while the handler ran: the completion must not land. */
  released: boolean;
  open: boolean;
}

/** A transaction a claim opened, under the claim's token; `taken` once `begin` handed it on. */
interface HeldTransaction {
  readonly tx: OpenTransaction;
  taken: boolean;
}

/**
 * The transactions of the transactional store, by the token of the claim that opened each: a claim
 * opens one and leaves it for `begin(token)`; until then a release rolls it back, afterwards a
 * release only fences its completion (the handler still writes through the client, which must stay
 * in the transaction).
 */
export function openTransactions(pool: ConnectionPool, ownerMaxTransactions: number) {
  const byToken = new Map<string, HeldTransaction>();
  const shares = ownerShares(ownerMaxTransactions);

  const checkOut = () => checkOutOf(pool);
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
    } finally {
      if (tx.owner !== undefined) shares.leave(tx.owner);
    }
    giveBack(tx.client);
    return command;
  };

  /** The open transaction of the claim `token` if no `begin` took it (then it is this caller's). */
  const takeUnbegun = (token: string): OpenTransaction | undefined => {
    const held = byToken.get(token);
    if (held === undefined || held.taken || !held.tx.open) return undefined;
    held.taken = true;
    return held.tx;
  };

  return {
    end,
    async claim(owner: string, claimOn: (client: PooledConnection) => Promise<ClaimOutcome>) {
      await shares.enter(owner);
      let client: PooledConnection;
      try {
        client = await checkOut();
      } catch (error) {
        shares.leave(owner);
        throw error;
      }
      let outcome: ClaimOutcome;
      try {
        outcome = await beginWith(client, claimOn);
      } catch (error) {
        shares.leave(owner);
        giveBack(client, true);
        throw error;
      }
      const tx: OpenTransaction = {
        client,
        owner,
        token: outcome.kind === 'claimed' ? outcome.token : undefined,
        released: false,
        open: true,
      };
      if (tx.token === undefined) {
        await end(tx, 'ROLLBACK');
        return outcome;
      }
      byToken.set(tx.token, { tx, taken: false });
      return outcome;
    },
    /** The transaction the claim `token` opened, else a new one. */
    async begin(token: string): Promise<OpenTransaction> {
      const claimed = takeUnbegun(token);
      if (claimed !== undefined) return claimed;
      return { client: await open(), token: undefined, released: false, open: true };
    },
    takeUnbegun,
    /** Whether the claim `token` still holds its key, when a transaction of this store made it. */
    holding(token: string): boolean | undefined {
      const held = byToken.get(token);
      return held === undefined ? undefined : !held.tx.released;
    },
    /** Releases the claim `token` when a transaction of this store made it; else undefined. */
    async release(token: string): Promise<boolean | undefined> {
      const held = byToken.get(token);
      if (held === undefined) return undefined;
      if (!held.taken) {
        // Not handed to the handler yet (a claim that came back too late): nothing else uses it.
        held.taken = true;
        await end(held.tx, 'ROLLBACK');
        return true;
      }
      if (held.tx.released) return false;
      held.tx.released = true;
      return true;
    },
  };
}

export type Transactions = ReturnType<typeof openTransactions>;

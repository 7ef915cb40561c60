import type { PooledConnection } from './sql-connection.js';

/** A response as stored under a key and replayed byte for byte. */
export interface StoredResponse {
  readonly status: number;
  /** Allow-listed headers only, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** What a claim found. Expired records (a lease or a retention that ran out) count as absent. */
export type ClaimOutcome =
  /** No live record: an in-progress record now exists and `token` fences its owner. */
  | { readonly kind: 'claimed'; readonly token: string }
  /** Another request with the same fingerprint holds a live lease. */
  | { readonly kind: 'in-progress' }
  /** The request already completed: replay `response`. */
  | { readonly kind: 'completed'; readonly response: StoredResponse }
  /** A live record exists for another fingerprint: the key was reused for a different request. */
  | { readonly kind: 'mismatch' }
  /**
   * No live record, and no room for one: the owner's quota (`'owner'`) or the whole store
   * (`'store'`) is full of unexpired records, none of which is ever dropped to make room. Nothing was
   * written. For `'owner'`, `retryAfterMs` is when the owner's own records leave room
   * (`untilOwnerRoom`: exact for the records as they are, whatever other owners hold); absent when
   * no wait would (the claim alone is over the owner's byte budget). Absent for `'store'`: when
   * other owners' records expire is not the caller's to know.
   */
  | { readonly kind: 'full'; readonly scope: 'owner' | 'store'; readonly retryAfterMs?: number };

/** How a claim is made (see {@link IdempotencyStore.claim}). */
export interface ClaimOptions {
  /**
   * The caller runs the handler under this claim and then calls {@link IdempotencyStore.begin} with
   * its token: a store that shares a transaction with the handler opens it with the claim (the
   * PostgreSQL store with `transactional`). Without it every claim is made on its own.
   */
  readonly withTransaction?: boolean;
}

/**
 * A transaction the store opened for the handler, so the handler's own writes and the idempotency
 * record commit (or roll back) together. The handler reaches it through {@link connection}, which the
 * middleware hands on as `ctx.var.idempotencyTransaction`.
 */
export interface StoreTransaction {
  /** The connection in the transaction, for the handler's own statements (absent: none to share). */
  readonly connection?: PooledConnection;
  /** Like {@link IdempotencyStore.complete}, inside the transaction. */
  complete(key: string, token: string, response: StoredResponse, retentionMs: number): Promise<boolean>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /**
   * Optional: {@link complete} and, when it completed, {@link commit}, as one step, for a store that
   * can send both at once (the PostgreSQL store on a pipelining client: one round trip instead of
   * two). Resolves false when the record was not completed; the transaction is then rolled back.
   * When present, the middleware calls it instead of `complete` then `commit`; after it, settled or
   * rejected, the transaction is over, and a `rollback` the middleware still calls does nothing.
   */
  completeAndCommit?(
    key: string,
    token: string,
    response: StoredResponse,
    retentionMs: number,
  ): Promise<boolean>;
}

/**
 * Where idempotency records live. Every implementation passes the same contract suite
 * (`test/idempotency/store-contract.ts`).
 *
 * Every store is bounded by entries and bytes, in total and per owner, and never evicts an unexpired
 * record to make room: a claim that does not fit is refused (`full`). Expired records are reclaimed
 * first.
 *
 * A record is in progress (with a lease that its owner renews) or completed (kept for a retention
 * period). Lease and retention are kept apart so a record whose owner died is taken over after the
 * lease, not after the retention. Each claim gets a fresh fencing token; `renew`, `complete` and
 * `release` act only when the token is that of the live in-progress record, so an owner whose lease
 * was taken over cannot overwrite the new owner's result.
 *
 * `claim`, `renew`, `complete` and `release` may answer at once (a value, not a promise), as the
 * memory store does: the middleware then waits for nothing, and no promise is made per call. A
 * store that answers at once may also throw at once; the middleware treats that as a rejection.
 */
export interface IdempotencyStore {
  /**
   * Atomically create an in-progress record unless a live one exists. `owner` names who the record
   * counts against (the middleware passes the principal or, for anonymous callers, the client
   * address); a store with per-owner quotas refuses with `full` rather than drop a live record.
   * Omitted, the record belongs to one shared anonymous owner. A claimed outcome's `token` is the
   * handle of the claim: every later call names it.
   */
  claim(
    key: string,
    fingerprint: string,
    leaseMs: number,
    owner?: string,
    options?: ClaimOptions,
  ): ClaimOutcome | Promise<ClaimOutcome>;
  /** Extend a live lease. False when `token` no longer owns the record. */
  renew(key: string, token: string, leaseMs: number): boolean | Promise<boolean>;
  /**
   * Store the response and keep it for `retentionMs`. False when `token` no longer owns the record.
   * The whole response is kept when the owner's budget has room for it (`keepsWhole`); otherwise
   * its brief (`briefResponse`: status, `Location`, validators, no body), so that a retry is
   * answered, never run again. A store that replicates may reject with {@link NotReplicatedError}:
   * the record was stored, on fewer copies than it was asked to wait for.
   */
  complete(
    key: string,
    token: string,
    response: StoredResponse,
    retentionMs: number,
  ): boolean | Promise<boolean>;
  /** Delete a live in-progress record so a retry can run. False when `token` no longer owns it. */
  release(key: string, token: string): boolean | Promise<boolean>;
  /**
   * Optional: the transaction shared with the handler of the claim `token` (see
   * {@link StoreTransaction}): the one its claim opened (`withTransaction`), else a new one. When
   * present, the middleware claims `withTransaction`, runs the handler inside it and writes the record
   * with {@link StoreTransaction.complete}.
   */
  begin?(token: string): Promise<StoreTransaction>;
  /**
   * True when the store answers from this process's memory and cannot hang: the middleware then
   * skips the timers that bound calls to remote stores (`storeTimeoutMs`). Optional.
   */
  readonly inProcess?: boolean;
}

/**
 * A completion's rejection when the record was stored, but fewer replicas than required have it (or
 * could: too few were online to wait for). The record replays while the copy that has it lives; a
 * failover to a replica without it loses it, and a retry then runs again. The middleware logs it as
 * a warning naming the request, apart from a completion that failed.
 */
export class NotReplicatedError extends Error {
  override readonly name = 'NotReplicatedError';
  constructor(
    /** Replicas known to have the record. */
    readonly acknowledged: number,
    /** Replicas the store was asked to wait for. */
    readonly required: number,
    message: string,
  ) {
    super(message);
  }
}

/** A fresh fencing token. */
export function newToken(): string {
  return crypto.randomUUID();
}

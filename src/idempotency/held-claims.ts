import { isPromise, type MaybePromise } from '../core/maybe-promise.js';
import { positiveNumber } from '../errors/option-checks.js';
import { withTimeout } from '../stores/timeout.js';
import type { ClaimOutcome, IdempotencyStore, StoreTransaction } from './stores/store.js';

/** Options of {@link heldClaims}. */
export interface HeldClaimsOptions {
  /** Bound on each release made by {@link HeldClaims.releaseAll}, in ms (default 2 s). */
  readonly timeoutMs?: number;
}

/** A store that knows which claims this process holds, and can let them all go. */
export interface HeldClaims {
  /** The store to give the idempotency middleware: the wrapped one, recording claims. */
  readonly store: IdempotencyStore;
  /** Claims taken and neither completed nor released yet. */
  readonly size: number;
  /**
   * Release every claim still held, each bounded by `timeoutMs`; resolves with how many the store
   * released. For shutdown, once requests in flight were cut: a client's retry then runs at once
   * instead of getting 409 until the lease runs out. Fencing keeps it safe: a handler that still
   * finishes later cannot store its response, its token no longer owns the record.
   */
  releaseAll(): Promise<number>;
}

/**
 * Wrap an idempotency store so the process can release the claims it holds when it shuts down
 * (draft-ietf-httpapi-idempotency-key-header section 2.6: a request still in progress is answered
 * 409; without a release, a retry sent to the next instance would meet that until the lease ends).
 *
 * @example
 * const claims = heldClaims(redisIdempotencyStore({ client }));
 * app.route({ method: 'POST', path: '/orders', use: [idempotency({ store: claims.store })], handler });
 * process.once('SIGTERM', async () => { await closeGracefully(server); await claims.releaseAll(); });
 */
export function heldClaims(store: IdempotencyStore, options: HeldClaimsOptions = {}): HeldClaims {
  if (store === null || typeof store !== 'object' || typeof store.release !== 'function') {
    throw new TypeError('heldClaims: store must implement IdempotencyStore');
  }
  const timeoutMs = positiveNumber('heldClaims', 'timeoutMs', options.timeoutMs, 2_000);
  /** token -> key of every claim taken and not yet completed or released. */
  const held = new Map<string, string>();
  const hold = (outcome: ClaimOutcome, key: string): ClaimOutcome => {
    if (outcome.kind === 'claimed') held.set(outcome.token, key);
    return outcome;
  };
  /** The store's answer `value`, the claim `token` no longer held. */
  const forget = <T>(token: string, value: T): T => {
    held.delete(token);
    return value;
  };
  /** `done`, and the claim `token` let go once it answered (not when it failed: then it is still held). */
  const letGo = <T>(token: string, done: MaybePromise<T>): MaybePromise<T> =>
    isPromise(done) ? done.then((value) => forget(token, value)) : forget(token, done);

  // A store that answers at once is still answered at once through the wrapper: no promise added.
  const wrapped: IdempotencyStore = {
    // The owner and the options are passed on: without the owner every claim would count against one
    // shared quota, without the options a transactional store would not open the transaction at the claim.
    claim: (key, fingerprint, leaseMs, owner, options) => {
      const outcome = store.claim(key, fingerprint, leaseMs, owner, options);
      return isPromise(outcome) ? outcome.then((answered) => hold(answered, key)) : hold(outcome, key);
    },
    renew: (key, token, leaseMs) => store.renew(key, token, leaseMs),
    complete: (key, token, response, retentionMs) =>
      letGo(token, store.complete(key, token, response, retentionMs)),
    release: (key, token) => letGo(token, store.release(key, token)),
    ...(store.inProcess === true ? { inProcess: true } : {}),
  };
  if (store.begin !== undefined) {
    const begin = store.begin.bind(store);
    wrapped.begin = async (token) => {
      const tx = await begin(token);
      const recorded: StoreTransaction = {
        ...(tx.connection === undefined ? {} : { connection: tx.connection }),
        complete: (key, token, response, retentionMs) =>
          tx.complete(key, token, response, retentionMs).then((done) => forget(token, done)),
        commit: () => tx.commit(),
        rollback: () => tx.rollback(),
      };
      const completeAndCommit = tx.completeAndCommit?.bind(tx);
      if (completeAndCommit !== undefined) {
        recorded.completeAndCommit = (key, token, response, retentionMs) =>
          completeAndCommit(key, token, response, retentionMs).then((done) => forget(token, done));
      }
      return recorded;
    };
  }

  return {
    store: wrapped,
    get size() {
      return held.size;
    },
    async releaseAll() {
      const claims = [...held];
      held.clear();
      const outcomes = await Promise.allSettled(
        claims.map(([token, key]) => withTimeout(() => store.release(key, token), timeoutMs)),
      );
      return outcomes.filter((o) => o.status === 'fulfilled' && o.value).length;
    },
  };
}

import { isPromise, type MaybePromise } from '../core/maybe-promise.js';
import { bodyBytes, collectBody } from '../core/response.js';
import type { ApiResponse, Context, Next } from '../http/types.js';
import { StoreTimeoutError, withTimeout } from '../stores/timeout.js';
import { shouldStore, toStoredResponse } from './decision.js';
import { inProgressError, storeUnavailableError } from './errors.js';
import { LeaseRenewals, type RunningClaim } from './lease-renewals.js';
import type { Config } from './options.js';
import {
  type ClaimOptions,
  type ClaimOutcome,
  NotReplicatedError,
  type StoreTransaction,
} from './stores/store.js';

const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 250;
const NO_BODY = new Uint8Array(0);

/**
 * The life of a claim (docs/idempotency.md): `claim` takes the key (polling while it is in progress,
 * with `wait`), `execute` runs the handler under the claim, renewing its lease, and completes the
 * record (in the store's transaction when it has one) or releases the claim. Every store call is
 * bounded by `storeTimeoutMs` (a 503 past it), but an in-process store's.
 */
export function claimLifecycle(config: Config) {
  const { store } = config;

  const unavailable = (error: unknown): never => {
    throw storeUnavailableError(error);
  };
  /**
   * A store call within `storeTimeoutMs`, its own error kept. A store in this process's memory cannot
   * hang: no timer around its calls, and an answer it gives at once is taken at once (a throw then
   * is thrown, as its rejection would be).
   */
  const within: <T>(call: () => MaybePromise<T>, onLate?: (value: T) => void) => MaybePromise<T> =
    store.inProcess ? (call) => call() : (call, onLate) => withTimeout(call, config.storeTimeoutMs, onLate);
  /** A store call within `storeTimeoutMs`, its failure a 503 (nothing was executed). */
  const bounded = <T>(call: () => MaybePromise<T>, onLate?: (value: T) => void): MaybePromise<T> => {
    let result: MaybePromise<T>;
    try {
      result = within(call, onLate);
    } catch (error) {
      return unavailable(error);
    }
    return isPromise(result) ? result.catch(unavailable) : result;
  };
  /** A store call whose failure is logged, not thrown: cleaning up after a request that failed. */
  const quietly = async (ctx: Context, what: string, call: () => MaybePromise<unknown>): Promise<void> => {
    try {
      await bounded(call);
    } catch (error) {
      ctx.logger.warn({ requestId: ctx.requestId, err: error }, `idempotency: ${what} failed`);
    }
  };

  // A store that shares a transaction with the handler opens it with the claim, for `begin`.
  const options: ClaimOptions | undefined = store.begin === undefined ? undefined : { withTransaction: true };
  const claimOnce = (key: string, fingerprint: string, owner: string): MaybePromise<ClaimOutcome> =>
    bounded(
      () => store.claim(key, fingerprint, config.leaseMs, owner, options),
      // A claim that lands after its deadline would block the key until the lease ends: undo it.
      (late) => {
        if (late.kind === 'claimed') settleLater(() => store.release(key, late.token)).catch(() => undefined);
      },
    );
  const claimWaiting = async (
    key: string,
    fingerprint: string,
    owner: string,
    waitMs: number,
  ): Promise<ClaimOutcome> => {
    const deadline = config.now() + waitMs;
    let pause = FIRST_POLL_MS;
    for (;;) {
      const outcome = await claimOnce(key, fingerprint, owner);
      if (outcome.kind !== 'in-progress' || config.now() >= deadline) return outcome;
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, MAX_POLL_MS);
    }
  };
  const { waitMs } = config;
  const claim =
    waitMs === undefined
      ? claimOnce
      : (key: string, fingerprint: string, owner: string) => claimWaiting(key, fingerprint, owner, waitMs);

  // A lease that was lost, or ran out while renewals failed, cannot be renewed again (the store
  // fences it): renewing stops there, instead of failing, and logging, for as long as the handler runs.
  const renewals = new LeaseRenewals<RunningClaim & { readonly ctx: Context; renewedAt: number }>(
    config.leaseMs,
    (running) => {
      const { ctx, key, token } = running;
      settleLater(() => bounded(() => store.renew(key, token, config.leaseMs))).then(
        (renewed) => {
          if (renewed) {
            running.renewedAt = config.now();
            return;
          }
          renewals.stop(running);
          ctx.logger.warn({ requestId: ctx.requestId }, 'idempotency: lease lost while the handler ran');
        },
        (error: unknown) => {
          if (config.now() - running.renewedAt >= config.leaseMs) renewals.stop(running);
          ctx.logger.warn({ requestId: ctx.requestId, err: error }, 'idempotency: lease renewal failed');
        },
      );
    },
  );

  const execute = async (ctx: Context, next: Next, key: string, token: string): Promise<ApiResponse> => {
    const running = { ctx, key, token, tick: 0, renewedAt: config.now() };
    renewals.start(running);
    const stopRenewing = () => renewals.stop(running);
    const release = () => quietly(ctx, 'release', () => store.release(key, token));
    let transaction: StoreTransaction | undefined;
    const rollback = async (): Promise<void> => {
      const tx = transaction;
      if (tx !== undefined) await quietly(ctx, 'rollback', () => tx.rollback());
    };
    let response: ApiResponse;
    let body: Uint8Array;
    try {
      if (store.begin !== undefined) {
        const begin = store.begin.bind(store);
        transaction = await bounded(
          () => begin(token),
          (late) => void late.rollback().catch(() => undefined),
        );
        // The one place the handler (and the layers after this one) find the transaction.
        const { connection } = transaction;
        if (connection !== undefined) ctx.var.idempotencyTransaction = connection;
      }
      response = await next();
      // Drain a streamed body here, so the response is stored whether or not the client is still there.
      // A whole body is at hand without an await; only a stream (or no body) goes through collectBody.
      body = bodyBytes(response) ?? (await collectBody(response)) ?? NO_BODY;
    } catch (error) {
      stopRenewing();
      await rollback();
      await release();
      throw error;
    }
    stopRenewing();

    if (!shouldStore(response.status, config.storeClientErrors)) {
      await rollback();
      await release();
      return response;
    }
    const stored = toStoredResponse(response, body, config.replayHeaders);
    const retentionMs = response.status >= 400 ? config.clientErrorRetentionMs : config.retentionMs;

    if (transaction !== undefined) {
      const tx = transaction;
      let completed: boolean;
      try {
        const completeAndCommit = tx.completeAndCommit?.bind(tx);
        if (completeAndCommit !== undefined) {
          completed = await bounded(() => completeAndCommit(key, token, stored, retentionMs));
        } else {
          completed = await bounded(() => tx.complete(key, token, stored, retentionMs));
          if (completed) await bounded(() => tx.commit());
        }
      } catch (error) {
        // Neither the handler's writes nor the record are known to be committed: roll back and let the
        // client retry (if the commit did land, the retry is replayed).
        await rollback();
        await release();
        throw error;
      }
      if (!completed) {
        // Our lease was taken over: the new owner's result stands and our writes are undone.
        await rollback();
        throw inProgressError();
      }
      return response;
    }

    try {
      const completing = within(() => store.complete(key, token, stored, retentionMs));
      const completed = isPromise(completing) ? await completing : completing;
      if (!completed) {
        ctx.logger.warn(
          { requestId: ctx.requestId },
          'idempotency: response not stored (the lease was taken over, or the store does not keep a response that large)',
        );
      }
    } catch (error) {
      // The side effect happened; the client gets its real result either way.
      logUnconfirmedCompletion(ctx, error);
    }
    return response;
  };

  return { claim, execute };
}

/** `call()` as a promise, whether it answers at once, later, or throws. */
function settleLater<T>(call: () => MaybePromise<T>): Promise<T> {
  return Promise.resolve().then(call);
}

/** What the log says when a completion did not confirm the record, by what the store knows of it. */
function logUnconfirmedCompletion(ctx: Context, error: unknown): void {
  const { logger, requestId } = ctx;
  if (error instanceof NotReplicatedError) {
    // Stored, and replayed while the copy that has it lives.
    logger.warn(
      { requestId, acknowledged: error.acknowledged, required: error.required },
      'idempotency: response stored, on fewer replicas than required: a failover before they have it could run a retry again',
    );
  } else if (error instanceof StoreTimeoutError) {
    // The call may still land (its WAIT queued behind others, say): neither outcome is known.
    logger.warn(
      { requestId, timeoutMs: error.timeoutMs },
      'idempotency: storing the response did not answer within storeTimeoutMs: a retry is replayed if it was stored, else runs again after the lease',
    );
  } else {
    // A retry after the lease runs again.
    logger.error({ requestId, err: error }, 'idempotency: response could not be stored');
  }
}

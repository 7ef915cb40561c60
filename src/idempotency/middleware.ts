import { readBody } from '../core/body.js';
import { describeLayer } from '../core/contract.js';
import { bodyBytes, collectBody } from '../core/response.js';
import { canonicalPath } from '../http/canonical-path.js';
import type { ApiResponse, Context, Middleware, Next } from '../http/types.js';
import { withTimeout } from '../stores/timeout.js';
import { peekJsonBody } from '../validation/json-text.js';
import { DEFAULT_REPLAY_HEADERS, replayOf, scopeKey, shouldStore, toStoredResponse } from './decision.js';
import {
  inProgressError,
  invalidKeyError,
  keyReusedError,
  missingKeyError,
  quotaFullError,
  storeFullError,
  storeUnavailableError,
} from './errors.js';
import { fingerprintOf } from './fingerprint.js';
import { parseIdempotencyKey } from './key.js';
import { LeaseRenewals, type RunningClaim } from './lease-renewals.js';
import { memoryStore } from './memory-store.js';
import type { ClaimOutcome, IdempotencyStore, StoreTransaction } from './store.js';

/** Options of {@link idempotency}. */
export interface IdempotencyOptions {
  /** Where records live (default: a fresh {@link memoryStore}, for a single instance). */
  readonly store?: IdempotencyStore;
  /** Refuse requests without a key with 400 (default false: they run normally). */
  readonly required?: boolean;
  /** Lease of a claim, renewed at most every third of it while the handler runs (default 10 s). */
  readonly leaseMs?: number;
  /** How long a completed response is kept for replay (default 24 h). */
  readonly retentionMs?: number;
  /**
   * How long a stored 4xx is kept (default 1 h, at most `retentionMs`): a refusal is cheap to
   * compute again, and holding it for a day fills the caller's quota (docs/idempotency.md, "Budgets").
   */
  readonly clientErrorRetentionMs?: number;
  /** Wait up to `timeoutMs` for a request in progress to finish and replay it, instead of a 409. */
  readonly wait?: { readonly timeoutMs: number };
  /** Bound on every store call but an `inProcess` store's; past it the request gets 503 (default 2 s). */
  readonly storeTimeoutMs?: number;
  /** Response headers stored and replayed (default {@link DEFAULT_REPLAY_HEADERS}); never `Set-Cookie`. */
  readonly replayHeaders?: readonly string[];
  /** Store and replay 4xx responses other than 401 and 429 (default true). */
  readonly storeClientErrors?: boolean;
  /**
   * Who a claim counts against in the store's per-owner quota (default: `sub:<sub>` for a principal,
   * else `ip:<socket peer address>`; behind a proxy pass e.g. `defaultRateLimitKey({ trustProxy })`).
   */
  readonly owner?: (ctx: Context) => string;
  /** Clock in milliseconds for the wait deadline and the default store (default `Date.now`). */
  readonly now?: () => number;
}

const GUARDED_METHODS = new Set(['POST', 'PATCH']);
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 250;
const NO_BODY = new Uint8Array(0);

interface Config {
  readonly store: IdempotencyStore;
  readonly required: boolean;
  readonly leaseMs: number;
  readonly retentionMs: number;
  readonly clientErrorRetentionMs: number;
  readonly waitMs: number | undefined;
  readonly storeTimeoutMs: number;
  readonly replayHeaders: ReadonlySet<string>;
  readonly storeClientErrors: boolean;
  readonly owner: (ctx: Context) => string;
  readonly now: () => number;
}

/** The default owner of a claim: the principal, else the client's address. */
function defaultOwner(ctx: Context): string {
  const sub = ctx.principal?.sub;
  return sub === undefined ? `ip:${ctx.request.remoteAddress ?? 'unknown'}` : `sub:${sub}`;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new TypeError(
      `idempotency: ${name} must be a positive number of milliseconds, got ${String(value)}`,
    );
  }
  return value;
}

function readOptions(options: IdempotencyOptions): Config {
  const now = options.now ?? Date.now;
  const replayHeaders = (options.replayHeaders ?? DEFAULT_REPLAY_HEADERS).map((name) => name.toLowerCase());
  if (options.owner !== undefined && typeof options.owner !== 'function') {
    throw new TypeError('idempotency: owner must be a function of the request context');
  }
  if (replayHeaders.includes('set-cookie')) {
    throw new TypeError('idempotency: Set-Cookie is never stored or replayed; remove it from replayHeaders');
  }
  const store = options.store ?? memoryStore({ now });
  const retentionMs = positive('retentionMs', options.retentionMs, 24 * 60 * 60 * 1000);
  if (typeof store.claim !== 'function' || typeof store.complete !== 'function') {
    throw new TypeError('idempotency: store must implement IdempotencyStore');
  }
  return {
    store,
    required: options.required ?? false,
    leaseMs: positive('leaseMs', options.leaseMs, 10_000),
    retentionMs,
    clientErrorRetentionMs: Math.min(
      retentionMs,
      positive('clientErrorRetentionMs', options.clientErrorRetentionMs, 60 * 60 * 1000),
    ),
    waitMs: options.wait === undefined ? undefined : positive('wait.timeoutMs', options.wait.timeoutMs, 0),
    storeTimeoutMs: positive('storeTimeoutMs', options.storeTimeoutMs, 2_000),
    replayHeaders: new Set(replayHeaders),
    storeClientErrors: options.storeClientErrors ?? true,
    owner: options.owner ?? defaultOwner,
    now,
  };
}

/**
 * Make POST and PATCH safe to retry with an `Idempotency-Key`
 * (draft-ietf-httpapi-idempotency-key-header; Stripe's semantics). Other methods pass through.
 *
 * The key is scoped by the principal's `sub` (put this after authentication). The first request
 * claims the key and runs the handler once; its status, allow-listed headers and body bytes are
 * stored, and a retry gets them replayed byte for byte with `Idempotent-Replayed: true`. The same key
 * with another method, resource (the path in its route's canonical form: `/orders/` is `/orders`),
 * query, body media type or body: 422. The body is read within the route's `bodyLimit` (413 past
 * it). A retry while the first runs: 409 with `Retry-After` (or, with `wait`, a bounded wait and the
 * replay). 5xx (returned or thrown), 401 and 429 are not stored and release the claim; a 4xx
 * `ApiError` the handler throws is stored as a returned one is. A failing or slow store: 503 with
 * `Retry-After`, nothing executed. A store that is full never drops a live record: the caller's own
 * quota full is 429, the whole store full is 503, both with `Retry-After` and nothing executed
 * (docs/idempotency.md, "Budgets").
 *
 * @example
 * app.route({
 *   method: 'POST', path: '/orders',
 *   use: [idempotency({ store: redisStore({ client: redis }) })],
 *   handler: createOrder,
 * });
 * @see https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/
 */
export function idempotency(options: IdempotencyOptions = {}): Middleware {
  const config = readOptions(options);
  const { store } = config;

  const unavailable = (error: unknown): never => {
    throw storeUnavailableError(error);
  };
  // A store in this process's memory cannot hang: no timer around its calls.
  const bounded = store.inProcess
    ? <T>(call: () => Promise<T>): Promise<T> => {
        try {
          return call().catch(unavailable);
        } catch (error) {
          return Promise.reject(storeUnavailableError(error));
        }
      }
    : <T>(call: () => Promise<T>, onLate?: (value: T) => void): Promise<T> =>
        withTimeout(call, config.storeTimeoutMs, onLate).catch(unavailable);
  const quietly = (ctx: Context, what: string, call: () => Promise<unknown>): Promise<void> =>
    bounded(call).then(
      () => undefined,
      (error: unknown) =>
        ctx.logger.warn({ requestId: ctx.requestId, err: error }, `idempotency: ${what} failed`),
    );

  const claimOnce = (key: string, fingerprint: string, owner: string, ctx: Context): Promise<ClaimOutcome> =>
    bounded(
      () => store.claim(key, fingerprint, config.leaseMs, owner, ctx),
      // A claim that lands after its deadline would block the key until the lease ends: undo it.
      (late) => {
        if (late.kind === 'claimed') store.release(key, late.token).catch(() => undefined);
      },
    );
  const claimWaiting = async (
    key: string,
    fingerprint: string,
    owner: string,
    ctx: Context,
    waitMs: number,
  ): Promise<ClaimOutcome> => {
    const deadline = config.now() + waitMs;
    let pause = FIRST_POLL_MS;
    for (;;) {
      const outcome = await claimOnce(key, fingerprint, owner, ctx);
      if (outcome.kind !== 'in-progress' || config.now() >= deadline) return outcome;
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, MAX_POLL_MS);
    }
  };
  const { waitMs } = config;
  const claim =
    waitMs === undefined
      ? claimOnce
      : (key: string, fingerprint: string, owner: string, ctx: Context) =>
          claimWaiting(key, fingerprint, owner, ctx, waitMs);

  const renewals = new LeaseRenewals<RunningClaim & { readonly ctx: Context }>(
    config.leaseMs,
    ({ ctx, key, token }) => {
      bounded(() => store.renew(key, token, config.leaseMs)).then(
        (renewed) => {
          if (!renewed)
            ctx.logger.warn({ requestId: ctx.requestId }, 'idempotency: lease lost while the handler ran');
        },
        (error: unknown) =>
          ctx.logger.warn({ requestId: ctx.requestId, err: error }, 'idempotency: lease renewal failed'),
      );
    },
  );

  const execute = async (ctx: Context, next: Next, key: string, token: string): Promise<ApiResponse> => {
    const running = { ctx, key, token, tick: 0 };
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
          () => begin(ctx),
          (late) => void late.rollback().catch(() => undefined),
        );
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
        await quietly(ctx, 'rollback', () => tx.rollback());
        await release();
        throw error;
      }
      if (!completed) {
        // Our lease was taken over: the new owner's result stands and our writes are undone.
        await quietly(ctx, 'rollback', () => tx.rollback());
        throw inProgressError();
      }
      return response;
    }

    try {
      const completed = await bounded(() => store.complete(key, token, stored, retentionMs));
      if (!completed) {
        ctx.logger.warn(
          { requestId: ctx.requestId },
          'idempotency: response not stored (the lease was taken over, or the store does not keep a response that large)',
        );
      }
    } catch (error) {
      // The side effect happened; the client gets its real result. A retry after the lease re-runs.
      ctx.logger.error({ requestId: ctx.requestId, err: error }, 'idempotency: response could not be stored');
    }
    return response;
  };

  const layer: Middleware = async function idempotencyMiddleware(ctx, next) {
    if (!GUARDED_METHODS.has(ctx.request.method)) return next();
    const parsed = parseIdempotencyKey(ctx.request.headers.get('idempotency-key'));
    if (parsed.kind === 'absent') {
      if (config.required) throw missingKeyError();
      return next();
    }
    if (parsed.kind === 'invalid') throw invalidKeyError(parsed.reason);

    // readBody keeps the bytes on the context, so the handler reads the same body after us; its limit
    // is the route's, the one every reader of this body uses.
    const body = await readBody(ctx);
    const { request } = ctx;
    const fingerprint = fingerprintOf(
      {
        method: request.method,
        path: canonicalPath(request.path, ctx.routePattern),
        search: request.search,
        contentType: request.headers.get('content-type'),
        body,
      },
      // The body decoder takes this parse instead of parsing the bytes again.
      (bytes) => peekJsonBody(ctx, bytes),
    );
    const key = scopeKey(ctx.principal?.sub, parsed.key);

    const outcome = await claim(key, fingerprint, config.owner(ctx), ctx);
    switch (outcome.kind) {
      case 'completed':
        return replayOf(outcome.response);
      case 'mismatch':
        throw keyReusedError();
      case 'in-progress':
        throw inProgressError();
      case 'full':
        throw outcome.scope === 'owner'
          ? quotaFullError(outcome.retryAfterMs)
          : storeFullError(outcome.retryAfterMs);
      case 'claimed':
        return execute(ctx, next, key, outcome.token);
    }
  };
  return describeLayer(layer, {
    methods: [...GUARDED_METHODS],
    requestHeaders: {
      'Idempotency-Key': {
        description:
          'A unique key per operation: a retry with it is answered as the first time (draft-ietf-httpapi-idempotency-key-header).',
        ...(config.required ? { required: true } : {}),
      },
    },
    responses: {
      // A route may answer 409 for its own reasons (a duplicate), without Retry-After.
      409: {
        description: 'Conflict: a request with this key is still in progress.',
        headers: { 'Retry-After': { ...RETRY_AFTER, required: false } },
      },
      422: { description: 'Unprocessable: this key was used with another request.' },
      429: {
        description: "Too Many Requests: the caller's idempotency quota is full.",
        headers: { 'Retry-After': RETRY_AFTER },
      },
      503: {
        description:
          'Service Unavailable: the idempotency store is full or unreachable; nothing was executed.',
        headers: { 'Retry-After': RETRY_AFTER },
      },
    },
    successHeaders: { 'Idempotent-Replayed': { description: '`true` on a replayed answer.' } },
  });
}

const RETRY_AFTER = {
  description: 'Seconds to wait before retrying.',
  required: true,
  schema: { type: 'integer' },
};

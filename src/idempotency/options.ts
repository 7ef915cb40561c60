import { functionOption, positiveNumber } from '../errors/option-checks.js';
import type { Context } from '../http/types.js';
import { DEFAULT_REPLAY_HEADERS } from './decision.js';
import { memoryIdempotencyStore } from './stores/memory/store.js';
import type { IdempotencyStore } from './stores/store.js';

// The options of `idempotency()`, checked at start-up (a TypeError naming the option).

/** Options of {@link idempotency}. */
export interface IdempotencyOptions {
  /** Where records live (default: a fresh {@link memoryIdempotencyStore}, for a single instance). */
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

/** The options of {@link idempotency}, read and checked. */
export interface Config {
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
  const sub = ctx.var.principal?.sub;
  return sub === undefined ? `ip:${ctx.request.remoteAddress ?? 'unknown'}` : `sub:${sub}`;
}

const OWNER = 'idempotency';

export function readOptions(options: IdempotencyOptions): Config {
  const now = options.now ?? Date.now;
  const replayHeaders = (options.replayHeaders ?? DEFAULT_REPLAY_HEADERS).map((name) => name.toLowerCase());
  if (options.owner !== undefined) {
    functionOption(OWNER, 'owner', options.owner, 'a function of the request context');
  }
  if (replayHeaders.includes('set-cookie')) {
    throw new TypeError('idempotency: Set-Cookie is never stored or replayed; remove it from replayHeaders');
  }
  const store = options.store ?? memoryIdempotencyStore({ now });
  const retentionMs = positiveNumber(OWNER, 'retentionMs', options.retentionMs, 24 * 60 * 60 * 1000);
  if (typeof store.claim !== 'function' || typeof store.complete !== 'function') {
    throw new TypeError('idempotency: store must implement IdempotencyStore');
  }
  return {
    store,
    required: options.required ?? false,
    leaseMs: positiveNumber(OWNER, 'leaseMs', options.leaseMs, 10_000),
    retentionMs,
    clientErrorRetentionMs: Math.min(
      retentionMs,
      positiveNumber(OWNER, 'clientErrorRetentionMs', options.clientErrorRetentionMs, 60 * 60 * 1000),
    ),
    waitMs:
      options.wait === undefined
        ? undefined
        : positiveNumber(OWNER, 'wait.timeoutMs', options.wait.timeoutMs, 0),
    storeTimeoutMs: positiveNumber(OWNER, 'storeTimeoutMs', options.storeTimeoutMs, 2_000),
    replayHeaders: new Set(replayHeaders),
    storeClientErrors: options.storeClientErrors ?? true,
    owner: options.owner ?? defaultOwner,
    now,
  };
}

import { defineMiddleware } from '../core/compose.js';
import { describeLayer, type OperationContract } from '../core/contract.js';
import { type MaybePromise, whenSettled } from '../core/maybe-promise.js';
import { appendListMember } from '../core/response.js';
import type { ApiError } from '../errors/api-error.js';
import { functionOption, positiveNumber } from '../errors/option-checks.js';
import { isCorsPreflight } from '../http/cors-preflight.js';
import type { Context, Middleware } from '../http/types.js';
import { withTimeout } from '../stores/timeout.js';
import type { RateLimitDecision } from './gcra.js';
import { formatRateLimitPolicy, rateLimitHeaders, tightestPolicy } from './headers.js';
import { defaultRateLimitKey } from './key.js';
import { type RateLimitPolicy, validatePolicies } from './policy.js';
import { quotaExceededError, rateLimitUnavailableError } from './problem-types.js';
import { memoryRateLimitStore } from './stores/memory/store.js';
import type { RateLimitStore } from './stores/store.js';

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** The route's policies (e.g. a burst and a sustained one); all must admit a request. */
  readonly policies: readonly RateLimitPolicy[];
  /** Where state lives (default: a {@link memoryRateLimitStore} per middleware, for one process). */
  readonly store?: RateLimitStore;
  /** The bucket of a request (default: {@link defaultRateLimitKey} with `trustProxy`, `ipv6Prefix`). */
  readonly key?: (ctx: Context) => string;
  /** Proxies whose `X-Forwarded-For` the default key believes (addresses/CIDRs; default none). */
  readonly trustProxy?: readonly string[];
  /** IPv6 grouping of the default key (default 56). */
  readonly ipv6Prefix?: number;
  /** When the store fails or times out: let the request through (`open`, default) or answer 503. */
  readonly onStoreError?: 'open' | 'closed';
  /** Bound on every store call, in ms (default 200). */
  readonly timeoutMs?: number;
  /** Also send `X-RateLimit-Limit`, `-Remaining`, `-Reset` (default false). */
  readonly legacyHeaders?: boolean;
  /** Clock of the default memory store (ms since the epoch); tests pass a fake one. */
  readonly now?: () => number;
}

export const DEFAULT_RATE_LIMIT_TIMEOUT_MS = 200;
/**
 * How long the store must answer without a single failure before the limiter logs that it is back
 * (docs/ratelimit.md, "When the store fails"): a store that fails some calls and answers others
 * (a Redis Cluster with one master down) is one outage, not one per alternation.
 */
export const STORE_RECOVERY_MS = 10_000;
/** `Retry-After` of the 503 sent when the store fails and `onStoreError` is `closed`. */
export const STORE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Adds one limiter's fields to a response. `RateLimit-Policy` and `RateLimit` are lists: an inner
 * limiter's members stay and this one's are appended. The legacy trio cannot list several policies:
 * the innermost limiter's values stay.
 */
function addHeaders(target: Record<string, string>, headers: Record<string, string>, legacy: boolean): void {
  appendListMember(target, 'ratelimit-policy', headers['ratelimit-policy']!);
  appendListMember(target, 'ratelimit', headers.ratelimit!);
  if (!legacy) return;
  for (const name of LEGACY_HEADERS) {
    const value = headers[name];
    if (value !== undefined && (target[name] === undefined || target[name] === '')) target[name] = value;
  }
}

const LEGACY_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;

/** The 429 of a refused request: the registered `quota-exceeded` type, naming the refusing policies. */
function refusedError(decision: RateLimitDecision, headers: Record<string, string>): ApiError {
  const { policy } = tightestPolicy(decision);
  const violated = decision.policies.filter((d) => !d.allowed).map((d) => d.policy.name);
  const seconds = decision.retryAfterSeconds;
  return quotaExceededError({
    violatedPolicies: violated,
    retryAfterSeconds: seconds,
    detail:
      `Rate limit exceeded: policy ${violated.map((name) => JSON.stringify(name)).join(', ')} allows ` +
      `${policy.quota} requests per ${policy.windowSeconds} s. Retry in ${seconds} s.`,
    headers,
  });
}

/**
 * Rate limiting with the IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-11):
 * every response that passes through carries `RateLimit-Policy` and `RateLimit` (errors included); a
 * request over quota gets a 429 of the registered problem type `quota-exceeded` (section 5.1), naming
 * the refusing policies in `violated-policies`, with `Retry-After` equal to the `t` of the refusing
 * policy. A failing or slow store never yields a 429: the request goes through (`open`, with a
 * warning logged) or gets a 503 `temporary-reduced-capacity` (section 5.2; `closed`). Place it after authentication to key by user. A CORS
 * preflight is not counted (nor answered with the fields): the browser sends it, not the client.
 *
 * @example
 * createApp({
 *   use: [authenticate({ verifier }), rateLimit({ policies: [
 *     { name: 'burst', quota: 100, windowSeconds: 60 },
 *     { name: 'daily', quota: 10_000, windowSeconds: 86_400 },
 *   ] })],
 * });
 * @see https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/11/
 */
export function rateLimit(options: RateLimitOptions): Middleware {
  if (options === null || typeof options !== 'object') throw new TypeError('rateLimit: options are required');
  const policies = validatePolicies(options.policies);
  const onStoreError = options.onStoreError ?? 'open';
  if (onStoreError !== 'open' && onStoreError !== 'closed') {
    throw new TypeError(`rateLimit: onStoreError must be 'open' or 'closed', got ${String(onStoreError)}`);
  }
  const timeoutMs = positiveNumber(
    'rateLimit',
    'timeoutMs',
    options.timeoutMs,
    DEFAULT_RATE_LIMIT_TIMEOUT_MS,
  );
  if (options.store !== undefined && options.now !== undefined) {
    throw new TypeError(
      'rateLimit: now is the clock of the default memory store; pass it to memoryRateLimitStore({ now })',
    );
  }
  const store = options.store ?? memoryRateLimitStore(options.now === undefined ? {} : { now: options.now });
  if (typeof store.consume !== 'function') throw new TypeError('rateLimit: store must implement consume()');
  if (options.key !== undefined)
    functionOption('rateLimit', 'key', options.key, 'a function of the request context');
  const keyOf =
    options.key ??
    defaultRateLimitKey({
      ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
      ...(options.ipv6Prefix === undefined ? {} : { ipv6Prefix: options.ipv6Prefix }),
    });
  const legacy = options.legacyHeaders ?? false;
  const policyField = formatRateLimitPolicy(policies);
  const policyNames = policies.map((p) => p.name);

  // The decision's headers are this layer's state, handed to its own way out: a limiter used at two
  // layers (app and route) adds each layer's own headers.
  const admit = (decision: RateLimitDecision): Record<string, string> => {
    const headers = rateLimitHeaders(decision, policyField, legacy);
    if (!decision.allowed) throw refusedError(decision, headers);
    return headers;
  };
  // One warning when an outage starts and one when it ends, not one per request: an outage starts at
  // a failure and ends at the first decision made after STORE_RECOVERY_MS without any failure. A
  // store that fails some calls and answers others (one shard of several down) stays in its outage,
  // so two lines per STORE_RECOVERY_MS at most, whatever the load. The clock is read on failures and
  // during an outage only.
  let outage: { failures: number; lastFailureAt: number } | undefined;
  const storeFailed = (ctx: Context, error: unknown): undefined => {
    const now = performance.now();
    if (outage === undefined) {
      outage = { failures: 1, lastFailureAt: now };
      ctx.logger.warn(
        { requestId: ctx.requestId, err: error },
        onStoreError === 'closed'
          ? 'rate-limit store unavailable; requests refused with 503 until it answers'
          : 'rate-limit store unavailable; requests let through unlimited until it answers',
      );
    } else {
      outage.failures++;
      outage.lastFailureAt = now;
    }
    if (onStoreError === 'closed') {
      throw rateLimitUnavailableError({
        violatedPolicies: policyNames,
        retryAfterSeconds: STORE_UNAVAILABLE_RETRY_AFTER_SECONDS,
        detail: 'The service cannot check its rate limits right now.',
        cause: error,
      });
    }
    return undefined;
  };
  const storeAnswered = (ctx: Context, decision: RateLimitDecision): Record<string, string> => {
    if (outage !== undefined && performance.now() - outage.lastFailureAt >= STORE_RECOVERY_MS) {
      const { failures } = outage;
      outage = undefined;
      ctx.logger.warn({ requestId: ctx.requestId, failures }, 'rate-limit store answers again; limits apply');
    }
    return admit(decision);
  };

  const layer = defineMiddleware<Context, Record<string, string> | undefined>({
    // An in-process store decides synchronously; a remote one is bounded by the timeout.
    before: function checkRateLimit(ctx) {
      // A browser sends a CORS preflight on its own, without credentials, before a script's first
      // non-simple request to each URL: counting it would halve a browser client's quota.
      if (isCorsPreflight(ctx.request)) return undefined;
      const key = keyOf(ctx);
      let decision: MaybePromise<RateLimitDecision>;
      try {
        decision =
          store.consumeSync !== undefined
            ? store.consumeSync(key, policies)
            : store.inProcess
              ? store.consume(key, policies)
              : withTimeout(() => store.consume(key, policies), timeoutMs);
      } catch (error) {
        return storeFailed(ctx, error);
      }
      return whenSettled(
        decision,
        (d) => storeAnswered(ctx, d),
        (error: unknown) => storeFailed(ctx, error),
      );
    },
    after: function addRateLimitHeaders(_ctx, response, headers) {
      if (headers !== undefined) addHeaders(response.headers, headers, legacy);
      return response;
    },
  });
  return describeLayer(layer, rateLimitContract(store, onStoreError));
}

const RATE_LIMIT_HEADERS = {
  RateLimit: {
    description:
      'The available quota of the tightest policy and its effective window (draft-ietf-httpapi-ratelimit-headers-11 section 4).',
  },
  'RateLimit-Policy': {
    description: 'The quota policies that apply (draft-ietf-httpapi-ratelimit-headers-11 section 3).',
  },
} as const;

// delay-seconds (RFC 9110 section 10.2.3): a non-negative integer of seconds.
const RETRY_AFTER = {
  description: 'Seconds until a request is allowed again.',
  schema: { type: 'integer', format: 'int64', minimum: 0 },
};

const QUOTA_SPENT = {
  description:
    'Too Many Requests: the quota is spent (RFC 6585 section 4); problem type quota-exceeded with violated-policies (draft-ietf-httpapi-ratelimit-headers-11 section 5.1).',
  headers: { 'Retry-After': { ...RETRY_AFTER, required: true } },
};

const STORE_DOWN = {
  description:
    'Service Unavailable: the rate limits cannot be checked (the store is down); problem type temporary-reduced-capacity (draft-ietf-httpapi-ratelimit-headers-11 section 5.2).',
  headers: { 'Retry-After': { ...RETRY_AFTER, required: true } },
};

/**
 * What `rateLimit` adds to every route: 429, and its headers on every response. A store outside
 * this process (not `inProcess`) can fail: then the headers are missing (failing open) or the
 * answer is 503 (failing closed), so they are not promised, and 503 is declared when closed. The
 * memory store answers every request, so its headers are always there and no 503 is declared.
 */
function rateLimitContract(store: RateLimitStore, onStoreError: 'open' | 'closed'): OperationContract {
  const fallible = store.inProcess !== true;
  const required = { required: !fallible };
  return {
    allHeaders: {
      RateLimit: { ...RATE_LIMIT_HEADERS.RateLimit, ...required },
      'RateLimit-Policy': { ...RATE_LIMIT_HEADERS['RateLimit-Policy'], ...required },
    },
    responses:
      fallible && onStoreError === 'closed' ? { 429: QUOTA_SPENT, 503: STORE_DOWN } : { 429: QUOTA_SPENT },
  };
}

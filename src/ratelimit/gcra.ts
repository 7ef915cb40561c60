/**
 * The pure core: the Generic Cell Rate Algorithm (GCRA, ITU-T I.371 "virtual scheduling"), one
 * theoretical arrival time (TAT) per client and policy.
 *
 * A policy of `quota` requests per `windowSeconds` is a GCRA with emission interval
 * `T = window / quota` and burst tolerance `window - T`: up to `quota` requests at once, then one
 * more every `T`. All arithmetic is in integer "ticks" of `1/quota` ms, so it is exact: one request
 * costs `window` ticks and the bucket holds `window * quota` ticks.
 */
import type { RateLimitPolicy } from './policy.js';

/**
 * GCRA state for one client under one policy: the theoretical arrival time
 * `tatMs + tatFraction / quota` (ms since the epoch). Absent state means a full quota.
 */
export interface GcraState {
  readonly tatMs: number;
  /** Sub-millisecond part of the TAT, in units of `1/quota` ms: `0 <= tatFraction < quota`. */
  readonly tatFraction: number;
}

/** The outcome of one policy for one request. */
export interface PolicyDecision {
  readonly policy: RateLimitPolicy;
  /** Whether this policy, on its own, admits the request. */
  readonly allowed: boolean;
  /** The available quota (`r`): requests that would be admitted right now, after this decision. */
  readonly remaining: number;
  /**
   * The effective window (`t`, draft-11 section 4.1.2), in whole seconds: the client can use no more
   * than `remaining` until one more request fits, which happens within this many seconds (the exact
   * time rounded up, so a client that keeps to `r` within `t` is never refused). Not a reset: after
   * `t` one more request fits, not the whole quota. 0 when the quota is full.
   */
  readonly resetSeconds: number;
  /** Seconds until this policy admits a request again, rounded up; 0 when it admits this one. */
  readonly retryAfterSeconds: number;
}

/** One request decided against all the policies of its route. */
export interface RateLimitDecision {
  /** True only when every policy admits the request. */
  readonly allowed: boolean;
  /** Seconds until every policy admits a request again (the largest of the policies'); 0 when allowed. */
  readonly retryAfterSeconds: number;
  /** One entry per policy, in the order the policies were given. */
  readonly policies: readonly PolicyDecision[];
}

/** {@link gcraDecide}'s result: the decision plus the state to store (unchanged when refused). */
export interface GcraDecision extends PolicyDecision {
  readonly newState: GcraState;
}

const windowMs = (policy: RateLimitPolicy): number => policy.windowSeconds * 1000;

/** `ceil(a / b)` for non-negative safe integers, without floating-point rounding. */
function ceilDiv(a: number, b: number): number {
  const rest = a % b;
  return (a - rest) / b + (rest > 0 ? 1 : 0);
}

/**
 * How far the TAT lies ahead of `nowMs`, in ticks, clamped to `[0, window * quota]`. The upper clamp
 * keeps a clock that stepped backwards from refusing a client for longer than one window.
 */
export function gcraDebt(state: GcraState | undefined, nowMs: number, policy: RateLimitPolicy): number {
  if (state === undefined) return 0;
  const capacity = windowMs(policy) * policy.quota;
  const debt = (state.tatMs - nowMs) * policy.quota + state.tatFraction;
  return debt <= 0 ? 0 : Math.min(debt, capacity);
}

/** The state whose TAT lies `debt` ticks after `nowMs`. */
export function gcraStateFromDebt(debt: number, nowMs: number, policy: RateLimitPolicy): GcraState {
  const { quota } = policy;
  let whole = Math.floor(debt / quota);
  if (whole * quota > debt) whole -= 1;
  return { tatMs: nowMs + whole, tatFraction: debt - whole * quota };
}

/** Whether a request fits: its cost on top of the debt stays within the bucket. */
function admits(debt: number, policy: RateLimitPolicy): boolean {
  const cost = windowMs(policy);
  return debt + cost <= cost * policy.quota;
}

function policyDecision(policy: RateLimitPolicy, debtBefore: number, consumed: boolean): PolicyDecision {
  const cost = windowMs(policy);
  const { quota } = policy;
  const debt = consumed ? debtBefore + cost : debtBefore;
  const used = ceilDiv(debt, cost);
  // The debt must fall to the next multiple of `cost` below it before one more request fits.
  const untilMoreTicks = debt === 0 ? 0 : debt - (used - 1) * cost;
  const allowed = admits(debtBefore, policy);
  return {
    policy,
    allowed,
    remaining: quota - used,
    resetSeconds: ceilDiv(untilMoreTicks, quota * 1000),
    retryAfterSeconds: allowed ? 0 : ceilDiv(debtBefore - (quota - 1) * cost, quota * 1000),
  };
}

/**
 * Decide a request from each policy's debt (ticks ahead of now, see {@link gcraDebt}): admitted only
 * when every policy admits it, and then every policy consumes one request; a request refused by any
 * policy consumes nothing anywhere. Stores that keep the state elsewhere (the Redis script) report
 * debts and share this arithmetic.
 */
export function gcraDecisionFromDebts(
  policies: readonly RateLimitPolicy[],
  debts: readonly number[],
): RateLimitDecision {
  const allowed = policies.every((policy, i) => admits(debts[i] ?? 0, policy));
  const decisions = policies.map((policy, i) => policyDecision(policy, debts[i] ?? 0, allowed));
  const retryAfterSeconds = allowed ? 0 : Math.max(...decisions.map((d) => d.retryAfterSeconds));
  return { allowed, retryAfterSeconds, policies: decisions };
}

/**
 * Decide one request against several policies at once, all or nothing (see {@link gcraDecisionFromDebts}).
 * `states[i]` belongs to `policies[i]`; `newStates` are the states to store when `allowed`.
 *
 * @example
 * const policies = [{ name: 'burst', quota: 10, windowSeconds: 1 }, { name: 'hour', quota: 1000, windowSeconds: 3600 }];
 * const { allowed, newStates } = gcraDecideAll([undefined, undefined], Date.now(), policies);
 */
export function gcraDecideAll(
  states: readonly (GcraState | undefined)[],
  nowMs: number,
  policies: readonly RateLimitPolicy[],
): RateLimitDecision & { readonly newStates: readonly GcraState[] } {
  const now = Math.floor(nowMs);
  if (policies.length === 1) return decideOne(states[0], now, policies[0]!);
  const debts = policies.map((policy, i) => gcraDebt(states[i], now, policy));
  const decision = gcraDecisionFromDebts(policies, debts);
  const cost = (policy: RateLimitPolicy) => (decision.allowed ? windowMs(policy) : 0);
  const newStates = policies.map((policy, i) => gcraStateFromDebt(debts[i]! + cost(policy), now, policy));
  return { ...decision, newStates };
}

/** {@link gcraDecideAll} for the usual single policy, with the same arithmetic and no lists to map. */
function decideOne(
  state: GcraState | undefined,
  now: number,
  policy: RateLimitPolicy,
): RateLimitDecision & { readonly newStates: readonly GcraState[] } {
  const debt = gcraDebt(state, now, policy);
  const decision = policyDecision(policy, debt, admits(debt, policy));
  const newDebt = decision.allowed ? debt + windowMs(policy) : debt;
  return {
    allowed: decision.allowed,
    retryAfterSeconds: decision.retryAfterSeconds,
    policies: [decision],
    newStates: [gcraStateFromDebt(newDebt, now, policy)],
  };
}

/**
 * The GCRA decision for one policy: `(state, now, policy) -> { allowed, newState, remaining,
 * resetSeconds, retryAfterSeconds }`. Times are ms since the epoch; `state` is `undefined` for a
 * client never seen (or whose state expired).
 *
 * @example
 * const first = gcraDecide(undefined, 0, { name: 'burst', quota: 2, windowSeconds: 60 });
 * // first.allowed === true, first.remaining === 1, first.resetSeconds === 30
 * @see https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/11/ (section 4.1)
 */
export function gcraDecide(
  state: GcraState | undefined,
  nowMs: number,
  policy: RateLimitPolicy,
): GcraDecision {
  const { policies, newStates } = gcraDecideAll([state], nowMs, [policy]);
  return { ...policies[0]!, newState: newStates[0]! };
}

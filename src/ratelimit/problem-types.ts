/**
 * The problem types of draft-ietf-httpapi-ratelimit-headers-11 (section 5, registered in section
 * 10.2): `quota-exceeded` (429), `temporary-reduced-capacity` (503) and `abnormal-usage-detected`
 * (429), each with the extension member `violated-policies`, the names of the policies concerned.
 * The factories build the `ApiError` of each; rendered, it is a problem document of that type, or a
 * JSON:API error object linking to it (`links.type`) with the same member under `meta`.
 */
import { ApiError, type ProblemType } from '../errors/api-error.js';

const REGISTRY = 'https://iana.org/assignments/http-problem-types';

/** The three registered types, with the titles of their registrations (section 10.2). */
export const RATE_LIMIT_PROBLEM_TYPES = {
  'quota-exceeded': { uri: `${REGISTRY}#quota-exceeded`, title: 'Quota Exceeded' },
  'temporary-reduced-capacity': {
    uri: `${REGISTRY}#temporary-reduced-capacity`,
    title: 'Temporary Reduced Capacity',
  },
  'abnormal-usage-detected': { uri: `${REGISTRY}#abnormal-usage-detected`, title: 'Abnormal Usage Detected' },
} as const satisfies Record<string, ProblemType>;

/** What a rate-limit refusal says: the policies concerned and when to come back. */
export interface RateLimitRefusal {
  /** The names of the policies the refusal is about (`violated-policies`); at least one. */
  readonly violatedPolicies: readonly string[];
  /** `Retry-After`, in whole seconds (RFC 9110 section 10.2.3). */
  readonly retryAfterSeconds: number;
  /** This occurrence in words; each factory has a default. */
  readonly detail?: string;
  /** Other response fields, such as `RateLimit` and `RateLimit-Policy` (lower-case names). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The underlying failure, logged for a 5xx and never sent. */
  readonly cause?: unknown;
  /** The error's `code` (default: the problem type's name). */
  readonly code?: string;
}

interface Answer {
  readonly status: 429 | 503;
  readonly type: keyof typeof RATE_LIMIT_PROBLEM_TYPES;
  readonly code: string;
  readonly detail: string;
}

function refusal(refused: RateLimitRefusal, answer: Answer): ApiError {
  const name = answer.type;
  const { violatedPolicies, retryAfterSeconds } = refused;
  if (!Array.isArray(violatedPolicies) || violatedPolicies.length === 0) {
    throw new TypeError(`${name}: violatedPolicies names at least one policy`);
  }
  if (!Number.isSafeInteger(retryAfterSeconds) || retryAfterSeconds < 0) {
    throw new TypeError(
      `${name}: retryAfterSeconds must be a whole number of seconds, got ${retryAfterSeconds}`,
    );
  }
  return new ApiError(answer.status, {
    code: answer.code,
    detail: refused.detail ?? answer.detail,
    headers: { ...refused.headers, 'retry-after': String(retryAfterSeconds) },
    problemType: RATE_LIMIT_PROBLEM_TYPES[name],
    extensions: { 'violated-policies': [...violatedPolicies] },
    ...(refused.cause === undefined ? {} : { cause: refused.cause }),
  });
}

/**
 * 429 `quota-exceeded` (draft-11 section 5.1): the client's requests exceed the named policies.
 * `rateLimit` answers with it; an application's own quota (a monthly plan, say) may too.
 *
 * @example
 * throw quotaExceededError({ violatedPolicies: ['monthly'], retryAfterSeconds: 3600 });
 */
export function quotaExceededError(refused: RateLimitRefusal): ApiError {
  return refusal(refused, {
    status: 429,
    type: 'quota-exceeded',
    code: refused.code ?? 'quota-exceeded',
    detail: `Quota exceeded for ${refused.violatedPolicies.join(', ')}. Retry in ${refused.retryAfterSeconds} s.`,
  });
}

/**
 * 503 `temporary-reduced-capacity` (draft-11 section 5.2): the requests cannot be served now because
 * the server's capacity is temporarily reduced. `rateLimit({ onStoreError: 'closed' })` answers with
 * it while its store is down (its code then `rate-limit-unavailable`): the limits cannot be checked,
 * so the capacity of each policy is nil until the store answers.
 *
 * @example
 * throw temporaryReducedCapacityError({ violatedPolicies: ['burst'], retryAfterSeconds: 30 });
 */
export function temporaryReducedCapacityError(refused: RateLimitRefusal): ApiError {
  return refusal(refused, {
    status: 503,
    type: 'temporary-reduced-capacity',
    code: refused.code ?? 'temporary-reduced-capacity',
    detail: `Capacity is temporarily reduced for ${refused.violatedPolicies.join(', ')}. Retry in ${refused.retryAfterSeconds} s.`,
  });
}

/**
 * 429 `abnormal-usage-detected` (draft-11 section 5.3): the server saw a pattern of requests that
 * suggests unintended or malicious use. The library detects no such pattern itself: an application's
 * detector throws it.
 *
 * @example
 * throw abnormalUsageDetectedError({ violatedPolicies: ['hourly'], retryAfterSeconds: 600 });
 */
export function abnormalUsageDetectedError(refused: RateLimitRefusal): ApiError {
  return refusal(refused, {
    status: 429,
    type: 'abnormal-usage-detected',
    code: refused.code ?? 'abnormal-usage-detected',
    detail: `Unusual request pattern under ${refused.violatedPolicies.join(', ')}. Retry in ${refused.retryAfterSeconds} s.`,
  });
}

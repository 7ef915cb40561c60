/**
 * The problem types of draft-ietf-httpapi-ratelimit-headers-11 (section 5, registered in section
 * 10.2): `quota-exceeded` (429), `temporary-reduced-capacity` (503) and `abnormal-usage-detected`
 * (429), each with the extension member `violated-policies`, the names of the policies concerned.
 * The factories build the `ApiError` of each; rendered, it is a problem document of that type, or a
 * JSON:API error object linking to it (`links.type`) with the same member under `meta`.
 */
import { ApiError, type ProblemType } from '../errors/api-error.js';
import { codedError } from '../errors/coded-error.js';
import { isErrorCode, type OwnErrorCode, type RateLimitErrorCode } from '../errors/codes.js';

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

/**
 * What a rate-limit refusal says: the policies concerned and when to come back; `C` is the literal
 * type of an application's own `code`, inferred from it.
 */
export interface RateLimitRefusal<C extends string = string> {
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
  /**
   * An application's own `code` for the error (`'plan-exhausted'`), in place of the problem type's
   * name; not one of the catalogue's codes (`OwnErrorCode`), which a `TypeError` refuses.
   */
  readonly code?: OwnErrorCode<C>;
}

interface Answer {
  readonly status: 429 | 503;
  readonly type: keyof typeof RATE_LIMIT_PROBLEM_TYPES;
  /** The catalogue's code, sent unless the application chose its own. */
  readonly code: RateLimitErrorCode;
  readonly ownCode?: string | undefined;
  readonly detail: string;
}

/** An application's own code, checked: a non-empty string that is not one of the catalogue's. */
function ownCode(code: unknown, name: string): string | undefined {
  if (code === undefined) return undefined;
  if (typeof code !== 'string' || code === '') {
    throw new TypeError(`${name}: code must be a non-empty string, got ${String(code)}`);
  }
  if (isErrorCode(code)) {
    throw new TypeError(
      `${name}: code ${JSON.stringify(code)} is one of the library's codes (docs/errors.md); leave it out for the default, or choose a code of your own`,
    );
  }
  return code;
}

/** The default detail of a 503 `temporary-reduced-capacity`, the application's or the limiter's own. */
function reducedCapacityDetail(
  refused: Pick<RateLimitRefusal, 'violatedPolicies' | 'retryAfterSeconds'>,
): string {
  return `Capacity is temporarily reduced for ${refused.violatedPolicies.join(', ')}. Retry in ${refused.retryAfterSeconds} s.`;
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
  const options = {
    detail: refused.detail ?? answer.detail,
    headers: { ...refused.headers, 'retry-after': String(retryAfterSeconds) },
    problemType: RATE_LIMIT_PROBLEM_TYPES[name],
    extensions: { 'violated-policies': [...violatedPolicies] },
    ...(refused.cause === undefined ? {} : { cause: refused.cause }),
  };
  return answer.ownCode === undefined
    ? codedError(answer.status, answer.code, options)
    : new ApiError(answer.status, { ...options, code: answer.ownCode });
}

/**
 * 429 `quota-exceeded` (draft-11 section 5.1): the client's requests exceed the named policies.
 * `rateLimit` answers with it; an application's own quota (a monthly plan, say) may too.
 *
 * @example
 * throw quotaExceededError({ violatedPolicies: ['monthly'], retryAfterSeconds: 3600 });
 */
export function quotaExceededError<C extends string>(refused: RateLimitRefusal<C>): ApiError {
  return refusal(refused, {
    status: 429,
    type: 'quota-exceeded',
    code: 'quota-exceeded',
    ownCode: ownCode(refused.code, 'quotaExceededError'),
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
export function temporaryReducedCapacityError<C extends string>(refused: RateLimitRefusal<C>): ApiError {
  return refusal(refused, {
    status: 503,
    type: 'temporary-reduced-capacity',
    code: 'temporary-reduced-capacity',
    ownCode: ownCode(refused.code, 'temporaryReducedCapacityError'),
    detail: reducedCapacityDetail(refused),
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
export function abnormalUsageDetectedError<C extends string>(refused: RateLimitRefusal<C>): ApiError {
  return refusal(refused, {
    status: 429,
    type: 'abnormal-usage-detected',
    code: 'abnormal-usage-detected',
    ownCode: ownCode(refused.code, 'abnormalUsageDetectedError'),
    detail: `Unusual request pattern under ${refused.violatedPolicies.join(', ')}. Retry in ${refused.retryAfterSeconds} s.`,
  });
}

/**
 * The 503 `rateLimit({ onStoreError: 'closed' })` answers while its store is down: a
 * `temporary-reduced-capacity` problem under the library's code `rate-limit-unavailable`.
 */
export function rateLimitUnavailableError(refused: Omit<RateLimitRefusal, 'code'>): ApiError {
  return refusal(refused, {
    status: 503,
    type: 'temporary-reduced-capacity',
    code: 'rate-limit-unavailable',
    detail: reducedCapacityDetail(refused),
  });
}

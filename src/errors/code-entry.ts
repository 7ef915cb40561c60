/** What the error catalogue (`ERROR_CODES`, codes.ts) says of each code. */

/** The module (subpath) that answers with a code; `core` is the pipeline, routing and bodies. */
export type ErrorModule =
  | 'core'
  | 'validation'
  | 'auth'
  | 'caching'
  | 'idempotency'
  | 'ratelimit'
  | 'versioning'
  | 'deprecation'
  | 'ownership'
  | 'envelope'
  | 'adapters';

/** One entry of {@link ERROR_CODES}. */
export interface ErrorCodeEntry {
  /** The statuses it comes with (an option may choose another, as versioning's `unsupportedStatus`). */
  readonly status: readonly number[];
  /** The modules that answer with it. */
  readonly modules: readonly ErrorModule[];
  /** When it is sent. */
  readonly when: string;
  /**
   * A 503 that declines load for a moment (`Retry-After`) with no failure behind it, which no layer
   * logs itself: the renderer logs it once, as a client error is logged, not as a server failure.
   */
  readonly declinesLoad?: true;
  /**
   * What an answer with this code shows a convention decided, as telemetry reads it back
   * (`conventionDecisions`, docs/observability.md): how a keyed write ended, a conditional request's
   * outcome, the rate limiter's decision, who authentication found, or a route past its `Sunset`.
   */
  readonly decision?: {
    readonly idempotency?: 'conflict' | 'mismatch' | 'refused' | 'unavailable';
    readonly precondition?: 'failed' | 'required';
    readonly rateLimit?: 'refused' | 'unavailable';
    readonly auth?: 'unauthenticated' | 'forbidden';
    readonly sunset?: true;
  };
}

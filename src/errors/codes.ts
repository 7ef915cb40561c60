/**
 * Every `code` an error document of this library carries, as data (docs/errors.md, "Codes"): a
 * client switches on `code`, never on `title` or `detail`. An error thrown without a code gets the
 * slug of its status phrase (`statusCode`, RFC 9110 section 15); the slugs the library itself answers
 * with are listed here too. An application's own codes (`new ApiError(503, { code: 'catalogue-offline' })`)
 * are its own to document.
 */

import type { ErrorCodeEntry, ErrorModule } from './code-entry.js';

export type { ErrorCodeEntry, ErrorModule } from './code-entry.js';

/**
 * The error codes of rest-conventions, like Fastify's `FST_ERR_*` list: one entry per code, with
 * its statuses, the modules that send it and when. docs/errors.md shows the same list.
 *
 * @example
 * if (problem.code === 'idempotency-request-in-progress') retryAfter(response.headers.get('retry-after'));
 * @see https://www.rfc-editor.org/rfc/rfc9457#section-3.2
 */
export const ERROR_CODES = {
  'abnormal-usage-detected': {
    status: [429],
    modules: ['ratelimit'],
    when: "the application's detector saw an abnormal request pattern (`abnormalUsageDetectedError`, `Retry-After`)",
  },
  'bad-request': {
    status: [400],
    modules: ['adapters'],
    when: 'the HTTP parser refused the request line, target or a field (node adapter)',
  },
  'body-too-large': { status: [413], modules: ['core'], when: 'the body is over the route limit' },
  'client-id-unsupported': {
    status: [403],
    modules: ['validation'],
    when: '`data.id` sent where the server assigns ids',
  },
  'database-unavailable': {
    status: [503],
    modules: ['idempotency'],
    when: "no database connection came free within the pool's bound (`Retry-After`)",
    declinesLoad: true,
    decision: { idempotency: 'unavailable' },
  },
  forbidden: {
    status: [403],
    modules: ['ownership'],
    when: 'the principal may not act on this resource',
    decision: { auth: 'forbidden' },
  },
  'id-mismatch': { status: [409], modules: ['validation'], when: '`data.id` is not the id in the path' },
  'idempotency-key-missing': {
    status: [400],
    modules: ['idempotency'],
    when: 'no `Idempotency-Key` where one is required',
    decision: { idempotency: 'refused' },
  },
  'idempotency-key-reused': {
    status: [422],
    modules: ['idempotency'],
    when: 'the key was used with another request',
    decision: { idempotency: 'mismatch' },
  },
  'idempotency-quota-exceeded': {
    status: [429],
    modules: ['idempotency'],
    when: "the caller's idempotency records are at their quota (`Retry-After`)",
    decision: { idempotency: 'unavailable' },
  },
  'idempotency-request-in-progress': {
    status: [409],
    modules: ['idempotency'],
    when: 'a request with this key is still running (`Retry-After`)',
    decision: { idempotency: 'conflict' },
  },
  'idempotency-store-full': {
    status: [503],
    modules: ['idempotency'],
    when: 'the idempotency store is full (`Retry-After`)',
    decision: { idempotency: 'unavailable' },
  },
  'idempotency-store-unavailable': {
    status: [503],
    modules: ['idempotency'],
    when: 'the idempotency store failed or was slow; nothing ran (`Retry-After`)',
    decision: { idempotency: 'unavailable' },
  },
  'insufficient-scope': {
    status: [403],
    modules: ['auth'],
    when: 'a required scope is missing',
    decision: { auth: 'forbidden' },
  },
  'internal-server-error': {
    status: [500],
    modules: ['core', 'adapters'],
    when: 'anything thrown that is not an `ApiError`',
  },
  'invalid-cursor': {
    status: [400],
    modules: ['envelope'],
    when: 'a page cursor this listing did not issue (forged, or from another sort)',
  },
  'invalid-document': { status: [400], modules: ['validation'], when: 'a JSON:API body is not an object' },
  'invalid-field': { status: [400], modules: ['validation'], when: 'a value the codec refused' },
  'invalid-header': {
    status: [400],
    modules: ['core', 'auth', 'caching'],
    when: 'a malformed `Content-Length`, two `Host` fields or an invalid one, a repeated `Authorization`, or `*` listed with entity tags',
  },
  'invalid-idempotency-key': {
    status: [400],
    modules: ['idempotency'],
    when: 'the `Idempotency-Key` is not a valid key',
    decision: { idempotency: 'refused' },
  },
  'invalid-parameter': {
    status: [400],
    modules: ['validation', 'envelope'],
    when: 'a query parameter the codec or the page size refused, or both page cursors at once',
  },
  'invalid-path': {
    status: [400],
    modules: ['core', 'adapters'],
    when: 'a path parameter that is not valid percent-encoding',
  },
  'invalid-target': {
    status: [400],
    modules: ['core'],
    when: 'a request target naming no resource here: `*`, another scheme than http(s), userinfo, a fragment or a backslash',
  },
  'invalid-token': {
    status: [401],
    modules: ['auth'],
    when: 'a malformed, bad or expired bearer token',
    decision: { auth: 'unauthenticated' },
  },
  'invalid-utf8': { status: [400], modules: ['validation'], when: 'body bytes that are not UTF-8' },
  'malformed-json': { status: [400], modules: ['validation'], when: 'an empty body or invalid JSON' },
  'method-not-allowed': { status: [405], modules: ['core'], when: 'the path is known, the method is not' },
  'missing-content-type': {
    status: [400],
    modules: ['core'],
    when: 'a QUERY request without `Content-Type` (RFC 10008 section 2.1)',
  },
  'missing-field': { status: [400], modules: ['validation'], when: 'a required member is missing' },
  'multiple-errors': {
    status: [400],
    modules: ['core'],
    when: 'the `code` of an RFC 9457 problem document listing several problems in `errors`',
  },
  'not-acceptable': { status: [406], modules: ['core'], when: '`Accept` allows no response type' },
  'not-found': {
    status: [404],
    modules: ['core', 'ownership'],
    when: 'no route at this path, a path parameter its codec refused, or no such resource',
  },
  'precondition-failed': {
    status: [412],
    modules: ['caching'],
    when: 'an `If-Match` or date precondition failed',
    decision: { precondition: 'failed' },
  },
  'precondition-required': {
    status: [428],
    modules: ['caching'],
    when: 'a write without `If-Match`',
    decision: { precondition: 'required' },
  },
  'quota-exceeded': {
    status: [429],
    modules: ['ratelimit'],
    when: 'the rate limit is reached, or `quotaExceededError` for an application quota (`Retry-After`)',
    decision: { rateLimit: 'refused' },
  },
  'rate-limit-unavailable': {
    status: [503],
    modules: ['ratelimit'],
    when: 'the rate-limit store failed and the policy fails closed',
    decision: { rateLimit: 'unavailable' },
  },
  'repeated-parameter': { status: [400], modules: ['validation'], when: 'a query parameter sent twice' },
  'request-aborted': { status: [400], modules: ['core'], when: 'the body stream failed mid-body' },
  'request-header-fields-too-large': {
    status: [431],
    modules: ['adapters'],
    when: 'the header section is over the server limit (node adapter)',
  },
  'request-timeout': {
    status: [408],
    modules: ['adapters'],
    when: 'the request was not received in time (node adapter)',
  },
  sunset: {
    status: [410],
    modules: ['deprecation'],
    when: 'the resource is past its `Sunset` date',
    decision: { sunset: true },
  },
  'temporary-reduced-capacity': {
    status: [503],
    modules: ['ratelimit'],
    when: "the application's capacity is temporarily reduced (`temporaryReducedCapacityError`, `Retry-After`)",
  },
  'type-mismatch': { status: [409], modules: ['validation'], when: '`data.type` is not the expected type' },
  unauthenticated: {
    status: [401],
    modules: ['auth'],
    when: 'no credentials where they are needed',
    decision: { auth: 'unauthenticated' },
  },
  'unknown-field': { status: [400], modules: ['validation'], when: 'a member the codec does not know' },
  'unknown-parameter': {
    status: [400],
    modules: ['validation'],
    when: 'a query parameter the route does not take',
  },
  'unknown-version': { status: [404], modules: ['versioning'], when: 'the path names no API version served' },
  'unsupported-content-coding': {
    status: [415],
    modules: ['core'],
    when: '`Content-Encoding` other than `identity`',
  },
  'unsupported-media-type': {
    status: [415],
    modules: ['validation'],
    when: 'another or no `Content-Type`, or bad media type parameters',
  },
  'unsupported-scheme': {
    status: [401],
    modules: ['auth'],
    when: '`Authorization` uses a scheme other than `Bearer`',
    decision: { auth: 'unauthenticated' },
  },
  'unsupported-transfer-coding': {
    status: [501],
    modules: ['core'],
    when: '`Transfer-Encoding` other than `chunked` alone',
  },
  'unsupported-version': {
    status: [406],
    modules: ['versioning'],
    when: "a version `Accept` asks for that is not served (the status is the policy's `unsupportedStatus`, default 406)",
  },
  'version-conflict': {
    status: [400],
    modules: ['versioning'],
    when: 'the path and `Accept` name different versions',
  },
  'version-not-acceptable': {
    status: [406],
    modules: ['versioning'],
    when: '`Accept` refuses the version the request resolves to',
  },
} as const satisfies Record<string, ErrorCodeEntry>;

/** Every code of {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes module `M` answers with. */
export type ErrorCodeOf<M extends ErrorModule> = {
  [K in ErrorCode]: M extends (typeof ERROR_CODES)[K]['modules'][number] ? K : never;
}[ErrorCode];

/**
 * A code an application chooses for an error of its own (`'plan-exhausted'`): any code but the
 * catalogue's, whose meanings docs/errors.md fixes, so a client switching on `code` never reads a
 * library code the library did not send. A literal is checked where it is written; a factory that
 * takes one (`quotaExceededError({ code })`) checks a `string` when it is called.
 */
export type OwnErrorCode<C extends string> = C extends ErrorCode ? never : C;

export type CoreErrorCode = ErrorCodeOf<'core'>;
export type ValidationErrorCode = ErrorCodeOf<'validation'>;
export type AuthErrorCode = ErrorCodeOf<'auth'>;
export type CachingErrorCode = ErrorCodeOf<'caching'>;
export type IdempotencyErrorCode = ErrorCodeOf<'idempotency'>;
export type RateLimitErrorCode = ErrorCodeOf<'ratelimit'>;
export type VersioningErrorCode = ErrorCodeOf<'versioning'>;
export type DeprecationErrorCode = ErrorCodeOf<'deprecation'>;
export type OwnershipErrorCode = ErrorCodeOf<'ownership'>;
export type EnvelopeErrorCode = ErrorCodeOf<'envelope'>;
export type AdaptersErrorCode = ErrorCodeOf<'adapters'>;

/** The codes of 503s that decline load with no failure behind them ({@link ErrorCodeEntry.declinesLoad}). */
export type DeclinedLoadCode = {
  [K in ErrorCode]: (typeof ERROR_CODES)[K] extends { readonly declinesLoad: true } ? K : never;
}[ErrorCode];

/** Whether `code` is one of the library's codes (a client's own codes are not). */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

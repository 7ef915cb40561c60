import type { ConventionDecisions } from './decisions.js';

/** A span or metric attribute value, as OpenTelemetry takes it (no OpenTelemetry import here). */
export type AttributeValue = string | number | boolean;

/**
 * The attribute names the conventions' decisions are reported under (docs/observability.md). Where
 * OpenTelemetry's semantic conventions have a name it is used (`enduser.id`); the rest are the
 * library's own, under `rest_conventions.` as the conventions ask of names they do not define.
 */
export const DECISION_ATTRIBUTES = {
  errorCode: 'rest_conventions.error.code',
  errorCount: 'rest_conventions.error.count',
  idempotency: 'rest_conventions.idempotency.outcome',
  precondition: 'rest_conventions.precondition.outcome',
  cachePolicy: 'rest_conventions.cache.policy',
  rateLimit: 'rest_conventions.ratelimit.decision',
  rateLimitRemaining: 'rest_conventions.ratelimit.remaining',
  rateLimitPolicy: 'rest_conventions.ratelimit.policy',
  apiVersion: 'rest_conventions.api.version',
  deprecated: 'rest_conventions.deprecated',
  sunset: 'rest_conventions.sunset',
  auth: 'rest_conventions.auth.outcome',
  subject: 'enduser.id',
} as const satisfies Record<keyof ConventionDecisions, string>;

/**
 * The decisions as span attributes, one per decision made (none for a convention that said nothing).
 *
 * @example
 * decisionAttributes({ auth: 'anonymous', idempotency: 'replayed' });
 * // { 'rest_conventions.auth.outcome': 'anonymous', 'rest_conventions.idempotency.outcome': 'replayed' }
 */
export function decisionAttributes(decisions: ConventionDecisions): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const name in decisions) {
    const value = decisions[name as keyof ConventionDecisions];
    if (value !== undefined) attributes[DECISION_ATTRIBUTES[name as keyof ConventionDecisions]] = value;
  }
  return attributes;
}

/** A counter a dashboard reads, one per question of docs/observability.md. */
export type ConventionCounter =
  | 'idempotency.replays'
  | 'idempotency.conflicts'
  | 'precondition.failures'
  | 'ratelimit.refusals'
  | 'deprecated.calls';

/**
 * The counters a request adds one to. Conflicts count both 409 (in progress) and 422 (key reused);
 * precondition failures both 412 and 428, not 304 (a cache hit, not a failure).
 */
export function countedBy(decisions: ConventionDecisions): ConventionCounter[] {
  const counters: ConventionCounter[] = [];
  const { idempotency, precondition } = decisions;
  if (idempotency === 'replayed') counters.push('idempotency.replays');
  else if (idempotency === 'conflict' || idempotency === 'mismatch') counters.push('idempotency.conflicts');
  if (precondition === 'failed' || precondition === 'required') counters.push('precondition.failures');
  if (decisions.rateLimit === 'refused') counters.push('ratelimit.refusals');
  if (decisions.deprecated === true) counters.push('deprecated.calls');
  return counters;
}

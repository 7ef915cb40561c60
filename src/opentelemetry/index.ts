/**
 * `rest-conventions/opentelemetry`: the conventions' decisions as OpenTelemetry traces and metrics
 * (docs/observability.md). The only subpath that imports `@opentelemetry/api`, an optional peer; it
 * never imports an SDK: the application registers one.
 */

export { DECISION_ATTRIBUTES } from '../observability/attributes.js';
export type {
  AuthOutcome,
  IdempotencyOutcome,
  PreconditionOutcome,
  RateLimitOutcome,
} from '../observability/decisions.js';
export { type TraceLogFields, traceLogFields } from './log-fields.js';
export { CALLER_ATTRIBUTE, type OpenTelemetryOptions, openTelemetry } from './server-telemetry.js';
export { STORE_ATTRIBUTE, type StoreTelemetryOptions, storeTelemetry } from './store-telemetry.js';

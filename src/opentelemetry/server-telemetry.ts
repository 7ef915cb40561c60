import {
  type Attributes,
  context,
  type MeterProvider,
  metrics,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Context as TelemetryContext,
  type TextMapGetter,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { defineMiddleware } from '../core/compose.js';
import type { ApiResponse, Context, HeaderBag, Middleware } from '../http/types.js';
import {
  type ConventionCounter,
  countedBy,
  DECISION_ATTRIBUTES,
  decisionAttributes,
} from '../observability/attributes.js';
import { conventionDecisions } from '../observability/decisions.js';
import { recordsNothing } from './sdk-presence.js';
import {
  ERROR_TYPE,
  HTTP_DURATION_BUCKETS,
  HTTP_REQUEST_METHOD,
  HTTP_REQUEST_METHOD_ORIGINAL,
  HTTP_RESPONSE_STATUS_CODE,
  HTTP_ROUTE,
  KNOWN_METHODS,
  NETWORK_PEER_ADDRESS,
  SCOPE,
  URL_PATH,
  USER_AGENT_ORIGINAL,
} from './semconv.js';

export interface OpenTelemetryOptions {
  /** Where spans go (default: the global provider, `trace.getTracerProvider()`). */
  readonly tracerProvider?: TracerProvider;
  /**
   * Where metrics go (default: the global provider). Instruments are made when the middleware is:
   * register the SDK's meter provider before calling `openTelemetry()`.
   */
  readonly meterProvider?: MeterProvider;
  /**
   * A bounded name for who made the request, added to the rate-limit refusal and deprecated-call
   * counters as `rest_conventions.caller`: a plan, a tenant, an OAuth client id. Never a user id or
   * an address, which would make one series per user (docs/observability.md, "Cardinality").
   */
  readonly caller?: (ctx: Context) => string | undefined;
}

/** Reads `traceparent`/`tracestate` (and whatever the registered propagator reads) from a request. */
const HEADER_GETTER: TextMapGetter<HeaderBag> = {
  get: (headers, key) => headers.get(key.toLowerCase()),
  // The request's field names are not listed by the model; propagators read the names they know.
  keys: () => [],
};

const COUNTER_NAMES: Record<ConventionCounter, { name: string; description: string }> = {
  'idempotency.replays': {
    name: 'rest_conventions.idempotency.replays',
    description:
      'Keyed writes answered with the stored response of an earlier request (Idempotent-Replayed).',
  },
  'idempotency.conflicts': {
    name: 'rest_conventions.idempotency.conflicts',
    description:
      'Keyed writes refused: 409 while the key is in progress, 422 for a key reused with another request.',
  },
  'precondition.failures': {
    name: 'rest_conventions.precondition.failures',
    description: 'Writes refused for a precondition: 412 (failed) or 428 (required).',
  },
  'ratelimit.refusals': {
    name: 'rest_conventions.ratelimit.refusals',
    description: 'Requests refused with 429 by the rate limiter.',
  },
  'deprecated.calls': {
    name: 'rest_conventions.deprecated.calls',
    description: 'Requests answered with Deprecation (RFC 9745), or 410 after their Sunset.',
  },
};

/**
 * The server telemetry middleware: a span per request following OpenTelemetry's HTTP server
 * conventions, the conventions' decisions as its attributes, `http.server.request.duration` and one
 * counter per convention (docs/observability.md). Put it first in `use`: it sees the final answer of
 * every layer, and the route the router matched (`http.route` is the declared pattern, never the
 * raw path).
 *
 * An incoming `traceparent` continues its trace (through the registered propagator). When the host
 * framework's own instrumentation already made a span active, the middleware adds to that span
 * instead of starting a second server span. Register the SDK first: made while none is registered,
 * the middleware is a layer that does nothing and costs nothing. A span that is not recording (sampled
 * out) gets no attributes.
 *
 * @example
 * const app = createApp({ use: [openTelemetry(), securityHeaders()] });
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Middleware {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('openTelemetry: options must be an object');
  const { caller } = options;
  if (caller !== undefined && typeof caller !== 'function')
    throw new TypeError('openTelemetry: caller must be a function of the request');
  const tracerProvider = options.tracerProvider ?? trace.getTracerProvider();
  const tracer = tracerProvider.getTracer(SCOPE);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
  const duration = meter.createHistogram('http.server.request.duration', {
    unit: 's',
    description: 'Duration of HTTP server requests.',
    advice: { explicitBucketBoundaries: HTTP_DURATION_BUCKETS },
  });
  // No SDK registered: a layer of no hooks, which the pipeline skips (docs/observability.md, "Cost").
  if (recordsNothing(tracerProvider, duration)) return defineMiddleware({});
  const counters = {} as Record<ConventionCounter, ReturnType<typeof meter.createCounter>>;
  for (const key of Object.keys(COUNTER_NAMES) as ConventionCounter[]) {
    const { name, description } = COUNTER_NAMES[key];
    counters[key] = meter.createCounter(name, { unit: '{request}', description });
  }

  const record = (ctx: Context, span: Span, response: ApiResponse, seconds: number, thrown: unknown) => {
    const { method } = ctx.request;
    const known = KNOWN_METHODS.has(method) ? method : '_OTHER';
    const route = ctx.routePattern;
    const { status } = response;
    const errorType = thrown !== undefined ? errorName(thrown) : status >= 500 ? String(status) : undefined;
    const metricAttributes: Attributes = {
      [HTTP_REQUEST_METHOD]: known,
      [HTTP_RESPONSE_STATUS_CODE]: status,
    };
    if (route !== undefined) metricAttributes[HTTP_ROUTE] = route;
    if (errorType !== undefined) metricAttributes[ERROR_TYPE] = errorType;
    duration.record(seconds, metricAttributes);

    const principal = ctx.var.principal;
    const decisions = conventionDecisions({
      status,
      headers: response.headers,
      json: response.json,
      apiVersion: ctx.var.apiVersion,
      subject: principal?.sub,
    });
    const counted = countedBy(decisions);
    if (counted.length > 0) {
      const by: Attributes = { [HTTP_REQUEST_METHOD]: known };
      if (route !== undefined) by[HTTP_ROUTE] = route;
      for (const counter of counted)
        counters[counter].add(1, counterAttributes(counter, by, decisions, ctx, caller));
    }

    if (!span.isRecording()) return;
    span.setAttributes(metricAttributes);
    span.setAttributes(decisionAttributes(decisions));
    span.updateName(route === undefined ? known : `${known} ${route}`);
    if (errorType !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
    if (thrown !== undefined) span.recordException(thrown instanceof Error ? thrown : String(thrown));
  };

  return async (ctx, next) => {
    const started = performance.now();
    const active = context.active();
    const framework = trace.getSpan(active);
    let span: Span;
    let inside: TelemetryContext;
    if (framework !== undefined) {
      // The framework's instrumentation (or the caller) has a span for this request: add to it.
      span = framework;
      inside = active;
    } else {
      const parent = propagation.extract(active, ctx.request.headers, HEADER_GETTER);
      span = tracer.startSpan(ctx.request.method, { kind: SpanKind.SERVER }, parent);
      inside = trace.setSpan(parent, span);
      if (span.isRecording()) span.setAttributes(requestAttributes(ctx));
    }
    let response: ApiResponse;
    try {
      response = await context.with(inside, next);
    } catch (error) {
      // The pipeline turns throws into responses; this is a rejection from outside it. Reported, re-thrown.
      record(ctx, span, { status: 500, headers: {} }, (performance.now() - started) / 1000, error);
      if (span !== framework) span.end();
      throw error;
    }
    record(ctx, span, response, (performance.now() - started) / 1000, undefined);
    if (span !== framework) span.end();
    return response;
  };
}

/** The request's own attributes, set when its span starts (HTTP server span, "Attributes"). */
function requestAttributes(ctx: Context): Attributes {
  const { request } = ctx;
  const attributes: Attributes = {
    [URL_PATH]: request.mountPath === undefined ? request.path : request.mountPath + request.path,
  };
  if (!KNOWN_METHODS.has(request.method)) attributes[HTTP_REQUEST_METHOD_ORIGINAL] = request.method;
  const agent = request.headers.get('user-agent');
  if (agent !== undefined) attributes[USER_AGENT_ORIGINAL] = agent;
  if (request.remoteAddress !== undefined) attributes[NETWORK_PEER_ADDRESS] = request.remoteAddress;
  return attributes;
}

/** A counter's attributes: the route and method, and what that counter is broken down by. */
function counterAttributes(
  counter: ConventionCounter,
  by: Attributes,
  decisions: ReturnType<typeof conventionDecisions>,
  ctx: Context,
  caller: OpenTelemetryOptions['caller'],
): Attributes {
  switch (counter) {
    case 'idempotency.conflicts':
      return { ...by, [DECISION_ATTRIBUTES.idempotency]: decisions.idempotency };
    case 'precondition.failures':
      return { ...by, [DECISION_ATTRIBUTES.precondition]: decisions.precondition };
    case 'ratelimit.refusals':
    case 'deprecated.calls': {
      const attributes: Attributes = { ...by };
      if (counter === 'ratelimit.refusals' && decisions.rateLimitPolicy !== undefined)
        attributes[DECISION_ATTRIBUTES.rateLimitPolicy] = decisions.rateLimitPolicy;
      const name = caller?.(ctx);
      if (name !== undefined) attributes[CALLER_ATTRIBUTE] = name;
      return attributes;
    }
    default:
      return by;
  }
}

/** The attribute `caller` (an option) fills: bounded by the application's choice. */
export const CALLER_ATTRIBUTE = 'rest_conventions.caller';

/** `error.type` for a throw: its class name, as the conventions ask (`_OTHER` when it has none). */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name || error.constructor.name : '_OTHER';
}

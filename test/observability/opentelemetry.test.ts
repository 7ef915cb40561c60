import { Writable } from 'node:stream';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, json } from '../../src/index.js';
import { openTelemetry, storeTelemetry, traceLogFields } from '../../src/opentelemetry/index.js';
import { memoryRateLimitStore, rateLimit } from '../../src/ratelimit/index.js';
import { requestView } from '../support/request.js';
import { counted, inMemoryTelemetry } from '../support/telemetry.js';

const telemetry = inMemoryTelemetry();
afterAll(() => telemetry.close());
const providers = { tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider };

describe('openTelemetry()', () => {
  it('counts a rate-limit refusal by policy and the bounded caller, never by address or raw path', async () => {
    const app = createApp({
      use: [
        openTelemetry({ ...providers, caller: (ctx) => ctx.request.headers.get('x-plan') }),
        rateLimit({
          policies: [{ name: 'burst', quota: 1, windowSeconds: 3600 }],
          store: memoryRateLimitStore(),
        }),
      ],
    });
    app.route({ method: 'GET', path: '/books/{id}', handler: () => json(200, { data: null }) });
    const before = await telemetry.metrics();
    const request = () => app.handle(requestView('GET', '/books/7', { headers: { 'x-plan': 'free' } }));
    expect((await request()).status).toBe(200);
    expect((await request()).status).toBe(429);
    const after = await telemetry.metrics();
    const refusals = (m: typeof after) =>
      counted(m.get('rest_conventions.ratelimit.refusals'), {
        'rest_conventions.ratelimit.policy': 'burst',
        'rest_conventions.caller': 'free',
      });
    expect(refusals(after) - refusals(before)).toBe(1);
    const points = after.get('rest_conventions.ratelimit.refusals')!.dataPoints;
    // An app-wide limiter answers before the router matched: no route to name, and never the path.
    for (const point of points) {
      expect(Object.values(point.attributes)).not.toContain('127.0.0.1');
      expect(Object.values(point.attributes)).not.toContain('/books/7');
    }
  });

  it("adds to the framework's active span instead of starting a second server span", async () => {
    const app = createApp({ use: [openTelemetry(providers)] });
    app.route({ method: 'GET', path: '/books/{id}', handler: () => json(200, { data: null }) });
    const tracer = telemetry.tracerProvider.getTracer('a-framework');
    const framework = tracer.startSpan('GET', { kind: SpanKind.SERVER });
    const traceId = framework.spanContext().traceId;
    const response = await context.with(trace.setSpan(context.active(), framework), () =>
      app.handle(requestView('GET', '/books/7')),
    );
    framework.end();
    expect(response.status).toBe(200);
    const spans = telemetry.spans().filter((s) => s.spanContext().traceId === traceId);
    expect(spans).toHaveLength(1);
    expect(spans[0]!.name).toBe('GET /books/{id}');
    expect(spans[0]!.attributes).toMatchObject({
      'http.route': '/books/{id}',
      'http.response.status_code': 200,
    });
  });

  it('marks a 5xx answer an error, with error.type its status, and gives log lines the trace ids', async () => {
    const lines: string[] = [];
    const logger = pino(
      { mixin: traceLogFields },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const app = createApp({ use: [openTelemetry(providers)], logger });
    app.route({
      method: 'GET',
      path: '/broken',
      handler: () => {
        throw new Error('boom');
      },
    });
    const response = await app.handle(requestView('GET', '/broken'));
    expect(response.status).toBe(500);
    const span = telemetry.spans().findLast((s) => s.name === 'GET /broken')!;
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('500');
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.at(-1)).toMatchObject({
      trace_id: span.spanContext().traceId,
      span_id: span.spanContext().spanId,
      trace_flags: '01',
    });
    expect(traceLogFields()).toEqual({});
  });

  it('answers the same without an SDK: the no-op API records nothing and changes nothing', async () => {
    const plain = createApp({});
    const observed = createApp({ use: [openTelemetry()] });
    for (const app of [plain, observed])
      app.route({ method: 'GET', path: '/books/{id}', handler: () => json(200, { data: { id: '7' } }) });
    const spansBefore = telemetry.spans().length;
    const [a, b] = await Promise.all(
      [plain, observed].map((app) => app.handle(requestView('GET', '/books/7'))),
    );
    expect({ ...b!, headers: { ...b!.headers, 'x-request-id': '' } }).toEqual({
      ...a!,
      headers: { ...a!.headers, 'x-request-id': '' },
    });
    expect(telemetry.spans()).toHaveLength(spansBefore);
    // Made with no SDK registered: a layer of no hooks, which the pipeline skips, and the store as it is.
    expect((openTelemetry() as { hooks?: object }).hooks).toEqual({ before: undefined, after: undefined });
    const store = memoryRateLimitStore();
    expect(storeTelemetry(store, { system: 'memory', store: 'ratelimit' })).toBe(store);
  });

  it('refuses options that are not what it takes, naming them', () => {
    expect(() => openTelemetry(null as never)).toThrow('openTelemetry: options must be an object');
    expect(() => openTelemetry({ caller: 'plan' as never })).toThrow(
      'openTelemetry: caller must be a function',
    );
  });
});

describe('storeTelemetry()', () => {
  it('makes a failing call an error span with error.type, and a duration sample that says so', async () => {
    class StoreDown extends Error {
      override readonly name = 'StoreDown';
    }
    const store = storeTelemetry(
      {
        limit: 3,
        async consume(_key: string) {
          throw new StoreDown('no answer');
        },
      },
      { ...providers, system: 'redis', store: 'ratelimit' },
    );
    expect(store.limit).toBe(3);
    const before = await telemetry.metrics();
    await expect(store.consume('k')).rejects.toThrow('no answer');
    const span = telemetry.spans().findLast((s) => s.name === 'consume ratelimit')!;
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({ 'db.system.name': 'redis', 'error.type': 'StoreDown' });
    const after = await telemetry.metrics();
    const failed = { 'db.operation.name': 'consume', 'error.type': 'StoreDown' };
    const samples = (m: typeof after) => counted(m.get('db.client.operation.duration'), failed);
    expect(samples(after) - samples(before)).toBe(1);
  });

  it('refuses a store or options it cannot instrument', () => {
    expect(() => storeTelemetry(null as never, { system: 'redis', store: 's' })).toThrow(
      'store must be an object',
    );
    expect(() => storeTelemetry({}, { system: '', store: 's' })).toThrow('system must be a non-empty');
    expect(() => storeTelemetry({}, { system: 'redis', store: '' })).toThrow(
      'store must be a non-empty name',
    );
  });
});

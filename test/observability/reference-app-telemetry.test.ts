import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, type Served, serve } from '../../examples/reference-app/serve.js';
import { referenceApp } from '../support/reference-app.js';
import { clientToken, counted, inMemoryTelemetry, ORDER } from '../support/telemetry.js';

const telemetry = inMemoryTelemetry();
const servers = new Map<string, Served>();

beforeAll(async () => {
  const { tracerProvider, meterProvider } = telemetry;
  for (const adapter of ADAPTERS) {
    const { app } = referenceApp({}, { telemetry: { tracerProvider, meterProvider } });
    servers.set(adapter, await serve(adapter, app, 0));
  }
});
afterAll(async () => {
  for (const served of servers.values()) await served.close();
  await telemetry.close();
});

/** A W3C `traceparent` for a fresh trace, and its ids. */
function traceparent() {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, header: `00-${traceId}-${parentId}-01` };
}

/** Sends a request in a trace of its own; the spans of that trace once the server span has ended. */
async function traced(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
) {
  const parent = traceparent();
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { ...headers, traceparent: parent.header },
    body,
  });
  await response.arrayBuffer();
  const spans = await waitFor(() => {
    const mine = telemetry.spans().filter((s) => s.spanContext().traceId === parent.traceId);
    return mine.some((s) => s.kind === SpanKind.SERVER) ? mine : undefined;
  });
  const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
  return { response, parent, server, spans };
}

/** Polls until `probe` gives a value (the span ends after the answer is written). */
async function waitFor<T>(probe: () => T | undefined): Promise<T> {
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const token = clientToken;

describe.each(ADAPTERS)('traces and metrics through the %s adapter', (adapter) => {
  const port = () => servers.get(adapter)!.port;

  it('continues the incoming trace with one server span named by the declared route', async () => {
    const { server, parent, spans } = await traced(port(), 'GET', '/books/1');
    expect(server.parentSpanContext?.spanId).toBe(parent.parentId);
    expect(server.name).toBe('GET /books/{id}');
    expect(server.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/books/{id}',
      'http.response.status_code': 200,
      'url.path': '/books/1',
      'rest_conventions.auth.outcome': 'anonymous',
      'rest_conventions.ratelimit.decision': 'allowed',
      'rest_conventions.ratelimit.policy': 'default',
    });
    expect(server.attributes['rest_conventions.cache.policy']).toEqual(expect.any(String));
    expect(spans.filter((s) => s.kind === SpanKind.SERVER)).toHaveLength(1);
    // The rate limiter's store call: a client span inside the server span.
    const consume = spans.find((s: ReadableSpan) => s.name === 'consume ratelimit')!;
    expect(consume.kind).toBe(SpanKind.CLIENT);
    expect(consume.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(consume.attributes).toMatchObject({
      'db.system.name': 'memory',
      'db.operation.name': 'consume',
      'rest_conventions.store': 'ratelimit',
    });
  });

  it('reports a 304, a replay, a conflict, 428 and 412, a deprecated call and a refused token', async () => {
    const before = await telemetry.metrics();
    const owner = await token(`owner-${adapter}`, 'mobile');
    const first = await traced(port(), 'GET', '/books/1');
    const etag = first.response.headers.get('etag')!;
    const notModified = await traced(port(), 'GET', '/books/1', { 'if-none-match': etag });
    expect(notModified.server.attributes['rest_conventions.precondition.outcome']).toBe('not-modified');

    const keyed = {
      authorization: owner,
      'content-type': 'application/vnd.api+json',
      'idempotency-key': `k-${adapter}`,
    };
    const created = await traced(port(), 'POST', '/orders', keyed, ORDER);
    expect(created.response.status).toBe(201);
    expect(created.spans.map((s) => s.name)).toEqual(
      expect.arrayContaining(['claim idempotency', 'complete idempotency']),
    );
    const replay = await traced(port(), 'POST', '/orders', keyed, ORDER);
    expect(replay.server.attributes).toMatchObject({
      'rest_conventions.idempotency.outcome': 'replayed',
      'rest_conventions.auth.outcome': 'authenticated',
      'enduser.id': `owner-${adapter}`,
    });
    const reused = await traced(port(), 'POST', '/orders', keyed, ORDER.replace('2', '3'));
    expect(reused.server.attributes).toMatchObject({
      'http.response.status_code': 422,
      'rest_conventions.idempotency.outcome': 'mismatch',
      'rest_conventions.error.code': 'idempotency-key-reused',
    });

    const order = created.response.headers.get('location')!;
    const path = new URL(order, 'http://x').pathname;
    const patch = (extra: Record<string, string>) =>
      traced(
        port(),
        'PATCH',
        path,
        { authorization: owner, 'content-type': 'application/json', ...extra },
        '{"quantity":5}',
      );
    const required = await patch({});
    expect(required.server.attributes['rest_conventions.precondition.outcome']).toBe('required');
    const failed = await patch({ 'if-match': '"stale"' });
    expect(failed.server.attributes['rest_conventions.precondition.outcome']).toBe('failed');

    const v1 = await traced(port(), 'GET', '/v1/users/1', { authorization: await token('1', 'mobile') });
    expect(v1.server.attributes).toMatchObject({
      'rest_conventions.deprecated': true,
      'rest_conventions.api.version': 1,
    });

    const refused = await traced(port(), 'GET', '/orders/1', { authorization: 'Bearer not-a-token' });
    expect(refused.server.attributes).toMatchObject({
      'rest_conventions.auth.outcome': 'unauthenticated',
      'rest_conventions.error.code': 'invalid-token',
    });
    expect(JSON.stringify(refused.server.attributes)).not.toContain('not-a-token');

    const invalid = await traced(
      port(),
      'POST',
      '/orders',
      { authorization: owner, 'content-type': 'application/vnd.api+json' },
      JSON.stringify({ data: { type: 'orders', attributes: { bookId: 'x', quantity: -1, extra: 1 } } }),
    );
    expect(invalid.response.status).toBe(400);
    expect(invalid.server.attributes['rest_conventions.error.count']).toBeGreaterThan(1);

    const after = await telemetry.metrics();
    const delta = (name: string, attributes: Record<string, unknown>) =>
      counted(after.get(name), attributes) - counted(before.get(name), attributes);
    expect(delta('rest_conventions.idempotency.replays', { 'http.route': '/orders' })).toBe(1);
    expect(
      delta('rest_conventions.idempotency.conflicts', {
        'http.route': '/orders',
        'rest_conventions.idempotency.outcome': 'mismatch',
      }),
    ).toBe(1);
    expect(delta('rest_conventions.precondition.failures', { 'http.route': '/orders/{id}' })).toBe(2);
    expect(
      delta('rest_conventions.deprecated.calls', {
        'http.route': '/v1/users/{id}',
        'rest_conventions.caller': 'mobile',
      }),
    ).toBe(1);
    expect(
      delta('http.server.request.duration', {
        'http.route': '/books/{id}',
        'http.response.status_code': 304,
      }),
    ).toBe(1);
    expect(
      delta('db.client.operation.duration', {
        'db.operation.name': 'claim',
        'rest_conventions.store': 'idempotency',
      }),
    ).toBe(3);
  });
});

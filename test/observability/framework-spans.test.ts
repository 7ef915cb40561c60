/**
 * A framework whose own instrumentation made a span active for the request (as
 * `@opentelemetry/instrumentation-http`, `@fastify/otel` or Hono's middleware do): the app mounted
 * in it adds to that span, through the adapter, instead of starting a second server span.
 */
import http from 'node:http';
import { serve as honoServe } from '@hono/node-server';
import { context, type Span, SpanKind, trace } from '@opentelemetry/api';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { afterAll, describe, expect, it } from 'vitest';
import { mountApp as expressMount } from '../../src/adapters/express/index.js';
import { mountApp as fastifyMount } from '../../src/adapters/fastify/index.js';
import { mountApp as honoMount } from '../../src/adapters/hono/index.js';
import { mountApp as koaMount } from '../../src/adapters/koa/index.js';
import { createApp, json } from '../../src/index.js';
import { openTelemetry } from '../../src/opentelemetry/index.js';
import { inMemoryTelemetry } from '../support/telemetry.js';

const telemetry = inMemoryTelemetry();
const tracer = telemetry.tracerProvider.getTracer('a-framework-instrumentation');
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  await telemetry.close();
});

function observedApp() {
  const app = createApp({
    use: [
      openTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider }),
    ],
  });
  app.route({ method: 'GET', path: '/books/{id}', handler: () => json(200, { data: null }) });
  return app;
}

/** The framework's span for a request, as its instrumentation starts one. */
const frameworkSpan = (): Span => tracer.startSpan('GET', { kind: SpanKind.SERVER });
const within = (span: Span) => trace.setSpan(context.active(), span);

async function listening(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as { port: number }).port;
}

const FRAMEWORKS: Record<string, () => Promise<number>> = {
  express: () => {
    const server = express();
    server.use((_req, res, next) => {
      const span = frameworkSpan();
      res.on('finish', () => span.end());
      context.with(within(span), next);
    });
    server.use(expressMount(observedApp()));
    return listening(http.createServer(server));
  },
  koa: () => {
    const server = new Koa();
    server.use(async (_ctx, next) => {
      const span = frameworkSpan();
      try {
        await context.with(within(span), next);
      } finally {
        span.end();
      }
    });
    server.use(koaMount(observedApp()));
    return listening(http.createServer(server.callback()));
  },
  hono: async () => {
    const server = new Hono();
    server.use(async (_c, next) => {
      const span = frameworkSpan();
      try {
        await context.with(within(span), next);
      } finally {
        span.end();
      }
    });
    server.all('*', honoMount(observedApp()));
    const node = honoServe({ fetch: server.fetch, port: 0, hostname: '127.0.0.1' }) as http.Server;
    await new Promise<void>((resolve) => (node.listening ? resolve() : node.once('listening', resolve)));
    closers.push(() => new Promise((resolve) => node.close(resolve)));
    return (node.address() as { port: number }).port;
  },
  fastify: async () => {
    const server = Fastify();
    server.addHook('onRequest', (request, _reply, done) => {
      const span = frameworkSpan();
      (request as { span?: Span }).span = span;
      context.with(within(span), done);
    });
    server.addHook('onResponse', (request, _reply, done) => {
      (request as { span?: Span }).span?.end();
      done();
    });
    await server.register(fastifyMount(observedApp()));
    await server.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => server.close());
    return (server.server.address() as { port: number }).port;
  },
};

describe.each(Object.keys(FRAMEWORKS))('the app mounted in %s, inside its instrumentation’s span', (name) => {
  it('adds the route and decisions to that span, and starts no second server span', async () => {
    const port = await FRAMEWORKS[name]!();
    const before = new Set(telemetry.spans());
    const response = await fetch(`http://127.0.0.1:${port}/books/7`);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    let mine = telemetry.spans().filter((s) => !before.has(s));
    for (let i = 0; mine.length === 0 && i < 1000; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      mine = telemetry.spans().filter((s) => !before.has(s));
    }
    expect(mine.filter((s) => s.kind === SpanKind.SERVER)).toHaveLength(1);
    const [span] = mine;
    expect(span!.instrumentationScope.name).toBe('a-framework-instrumentation');
    expect(span!.name).toBe('GET /books/{id}');
    expect(span!.attributes).toMatchObject({ 'http.route': '/books/{id}', 'http.response.status_code': 200 });
  });
});

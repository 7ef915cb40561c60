/**
 * The app mounted in Express, Koa, Hono and Fastify, each on its real node:http server, under the
 * real `@opentelemetry/instrumentation-http`: that instrumentation starts the request's one SERVER
 * span (continuing the incoming `traceparent`, W3C Trace Context section 3.2), and the mounted app
 * adds the declared route and its conventions' decisions to it, through the adapter, instead of
 * starting a second server span.
 */
import { createRequire } from 'node:module';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, describe, expect, it } from 'vitest';

// The instrumentation patches `http` through a require hook, when something requires the module
// after it is enabled: the `require` below does, before any server exists. Its patch of
// `http.Server.prototype.emit` then sees every request, on a server made from this module or by a
// framework that loaded `node:http` its own way, ESM import or require (the same module object).
const exporter = new InMemorySpanExporter();
const tracerProvider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
tracerProvider.register();
const instrumentation = new HttpInstrumentation({ enabled: false });
instrumentation.setTracerProvider(tracerProvider);
instrumentation.enable();
const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');

const { serve: honoServe } = await import('@hono/node-server');
const { default: express } = await import('express');
const { default: Fastify } = await import('fastify');
const { Hono } = await import('hono');
const { default: Koa } = await import('koa');
const { mountApp: expressMount } = await import('../../src/adapters/express/index.js');
const { mountApp: fastifyMount } = await import('../../src/adapters/fastify/index.js');
const { mountApp: honoMount } = await import('../../src/adapters/hono/index.js');
const { mountApp: koaMount } = await import('../../src/adapters/koa/index.js');
const { createApp, json } = await import('../../src/index.js');
const { openTelemetry } = await import('../../src/opentelemetry/index.js');

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  instrumentation.disable();
  await tracerProvider.shutdown();
  // register() made it the global provider (with a context manager and a propagator): test files
  // share a worker, and a later file's openTelemetry() must find no SDK, as an app without one does.
  trace.disable();
  context.disable();
  propagation.disable();
});

function observedApp() {
  const app = createApp({ use: [openTelemetry({ tracerProvider })] });
  app.route({
    method: 'GET',
    path: '/books/{id}',
    handler: () => json(200, { data: null }, { 'cache-control': 'max-age=60' }),
  });
  return app;
}

async function listening(server: import('node:http').Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as { port: number }).port;
}

const FRAMEWORKS: Record<string, () => Promise<number>> = {
  express: () => {
    const server = express();
    server.use(expressMount(observedApp()));
    return listening(http.createServer(server));
  },
  koa: () => {
    const server = new Koa();
    server.use(koaMount(observedApp()));
    return listening(http.createServer(server.callback()));
  },
  hono: async () => {
    const server = new Hono();
    server.all('*', honoMount(observedApp()));
    const node = honoServe({
      fetch: server.fetch,
      port: 0,
      hostname: '127.0.0.1',
    }) as import('node:http').Server;
    await new Promise<void>((resolve) => (node.listening ? resolve() : node.once('listening', resolve)));
    closers.push(() => new Promise((resolve) => node.close(resolve)));
    return (node.address() as { port: number }).port;
  },
  fastify: async () => {
    const server = Fastify();
    await server.register(fastifyMount(observedApp()));
    await server.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => server.close());
    return (server.server.address() as { port: number }).port;
  },
};

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe.each(Object.keys(FRAMEWORKS))('the app mounted in %s, under instrumentation-http', (name) => {
  it('adds the route and decisions to its server span, in the incoming trace, and starts no second', async () => {
    const port = await FRAMEWORKS[name]!();
    const before = new Set(exporter.getFinishedSpans());
    const response = await fetch(`http://127.0.0.1:${port}/books/7`, {
      headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const mine = () => exporter.getFinishedSpans().filter((s) => !before.has(s));
    for (let i = 0; mine().length === 0 && i < 1000; i++)
      await new Promise((resolve) => setImmediate(resolve));

    const servers = mine().filter((s) => s.kind === SpanKind.SERVER);
    expect(servers).toHaveLength(1);
    const [span] = servers;
    expect(span!.instrumentationScope.name).toBe('@opentelemetry/instrumentation-http');
    expect(span!.spanContext().traceId).toBe(TRACE_ID);
    expect(span!.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span!.name).toBe('GET /books/{id}');
    expect(span!.attributes).toMatchObject({
      'http.route': '/books/{id}',
      'http.response.status_code': 200,
      'rest_conventions.auth.outcome': 'anonymous',
      'rest_conventions.cache.policy': 'max-age=60',
    });
  });
});

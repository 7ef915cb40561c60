/**
 * The peer on Hono 4 and @hono/node-server with Hono's secure-headers, etag and jwt middleware and
 * hono-rate-limiter (`hono-app.ts`; on Bun and Deno: `bench/runtimes/hono.ts`).
 */
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { listening } from './catalogue.js';
import { honoPeer } from './hono-app.js';

const app = honoPeer((c) => getConnInfo(c).remote.address);
serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1' }, (info) =>
  listening(info.port),
);

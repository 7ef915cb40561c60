/**
 * HEAD through the Fastify `conventions` plugin: Fastify answers HEAD for a GET route itself
 * (`exposeHeadRoutes`), with an `onSend` hook of its own after the plugin's. Every answer (the
 * route's, an early one from `onRequest`, an error) must be the GET's status and headers without
 * content (RFC 9110 section 9.3.2). A real server on loopback.
 */
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fa from '../../src/adapters/fastify/index.js';
import { conditional } from '../../src/caching/conditional.js';
import { defineMiddleware } from '../../src/core/compose.js';
import { ApiError } from '../../src/errors/api-error.js';

/** Answers `/gated` from `onRequest`, before the route. */
const gate = defineMiddleware({
  before: (ctx) => {
    if (ctx.request.path === '/gated') throw new ApiError(401);
  },
});

/** Differ per response, or per connection. */
const PER_RESPONSE = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding']);

let server: FastifyInstance;
let base = '';

beforeAll(async () => {
  server = Fastify();
  await server.register(fa.conventions({ use: [gate, conditional()] }));
  server.get('/text', (_request, reply) => reply.type('text/plain').send('route body'));
  server.get('/json', () => ({ title: 'Kindred' }));
  server.get('/stream', (_request, reply) =>
    reply.type('text/plain').send(Readable.from([Buffer.from('ab'), Buffer.from('cd')])),
  );
  server.get('/string-stream', (_request, reply) =>
    reply.type('text/plain').send(Readable.from(['ab', 'cé'])),
  );
  server.get('/empty', (_request, reply) => reply.code(204).send());
  server.get('/gated', () => 'never');
  server.get('/missing', () => {
    throw new ApiError(404);
  });
  base = await server.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server.close();
});

async function exchange(method: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, { method, headers });
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!PER_RESPONSE.has(name)) kept[name] = value;
  });
  return { status: response.status, headers: kept, body: await response.text() };
}

describe('a stream of strings sent through the Fastify conventions plugin', () => {
  it('is the route’s text, as node would write it (not a 500)', async () => {
    const answer = await exchange('GET', '/string-stream');
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('abcé');
    expect(answer.headers.etag).toMatch(/^"/);
  });
});

describe('HEAD through the Fastify conventions plugin', () => {
  it('answers with the GET’s status and headers and no content, whoever answered', async () => {
    const etag = (await exchange('GET', '/text')).headers.etag!;
    expect(etag).toMatch(/^"/);
    const requests: [string, Record<string, string>?][] = [
      ['/text'],
      ['/text', { 'if-none-match': etag }],
      ['/json'],
      ['/stream'],
      ['/empty'],
      ['/gated'],
      ['/missing'],
    ];
    for (const [path, headers] of requests) {
      const get = await exchange('GET', path, headers);
      const head = await exchange('HEAD', path, headers);
      expect(get.status, path).toBeLessThan(500);
      expect(head, path).toEqual({ ...get, body: '' });
    }
  });

  it('sends no Content-Length with a 204 or a 304 (RFC 9110 section 8.6)', async () => {
    const etag = (await exchange('GET', '/text')).headers.etag!;
    const notModified = await exchange('HEAD', '/text', { 'if-none-match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers['content-length']).toBeUndefined();
    const empty = await exchange('HEAD', '/empty');
    expect(empty.status).toBe(204);
    expect(empty.headers['content-length']).toBeUndefined();
  });

  it('gives a HEAD the GET’s Content-Length', async () => {
    const head = await exchange('HEAD', '/text');
    expect(head.headers['content-length']).toBe(String('route body'.length));
  });
});

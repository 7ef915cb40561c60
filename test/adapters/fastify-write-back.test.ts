/**
 * The Fastify driver writes back only the headers the primitives changed (docs/benchmarks.md, "The
 * Fastify driver"): what they add, change and remove must reach the wire, the route's own headers
 * and `Set-Cookie` lines must stay, and the status is theirs. A real server on loopback.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fa from '../../src/adapters/fastify/index.js';
import { defineMiddleware } from '../../src/core/compose.js';

/** Adds one header, changes one, removes one; on `/moved` also answers 299 and sets a cookie. */
const rewrites = defineMiddleware({
  after: (ctx, response) => {
    const headers: Record<string, string> = {
      ...response.headers,
      'x-added': 'by the primitive',
      'x-changed': 'after',
    };
    delete headers['x-removed'];
    if (ctx.request.path !== '/moved') return { ...response, headers };
    return { ...response, status: 299, headers: { ...headers, 'set-cookie': 'primitive=1' } };
  },
});

let server: FastifyInstance;
let base = '';

beforeAll(async () => {
  server = Fastify();
  await server.register(fa.conventions({ use: [rewrites] }));
  const route = (_request: unknown, reply: import('fastify').FastifyReply) =>
    reply
      .header('x-kept', 'by the route')
      .header('x-changed', 'before')
      .header('x-removed', 'gone')
      .header('set-cookie', ['a=1', 'b=2'])
      .type('text/plain')
      .send('route body');
  server.get('/plain', route);
  server.get('/moved', route);
  base = await server.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server.close();
});

describe('the Fastify driver writes back what the primitives changed', () => {
  it('adds, changes and removes headers, and keeps the route’s own and its cookies', async () => {
    const response = await fetch(`${base}/plain`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('route body');
    expect(response.headers.get('x-added')).toBe('by the primitive');
    expect(response.headers.get('x-changed')).toBe('after');
    expect(response.headers.has('x-removed')).toBe(false);
    expect(response.headers.get('x-kept')).toBe('by the route');
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(response.headers.get('content-length')).toBe(String('route body'.length));
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
  });

  it('takes the primitives’ status, and puts their cookie before the route’s', async () => {
    const response = await fetch(`${base}/moved`);
    expect(response.status).toBe(299);
    expect(response.headers.getSetCookie()).toEqual(['primitive=1', 'a=1', 'b=2']);
    expect(response.headers.get('x-changed')).toBe('after');
  });
});

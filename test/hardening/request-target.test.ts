import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { ADAPTERS, type Served, serve } from '../../examples/reference-app/serve.js';
import { bearer, referenceApp } from '../support/reference-app.js';
import { assertJsonApi } from '../support/schemas.js';
import { exchange, type RawReply } from './raw-http.js';

/**
 * One answer to a request target on every adapter (issue 41, findings 4 to 6), over raw sockets:
 * the reference app through all six adapters (mounted) and the four framework examples (the
 * primitives as middleware, the framework's router behind). Before, `/x/../health/ready` was 200 on
 * fetch and Hono (the WHATWG parser resolved it) and 404 elsewhere, two `Host` fields were taken
 * everywhere, and Fastify answered PROPFIND 404.
 */
const request = (line: string, fields: readonly string[] = ['Host: x'], body = '') =>
  `${line} HTTP/1.1\r\n${fields.map((f) => `${f}\r\n`).join('')}Connection: close\r\n\r\n${body}`;

/**
 * `@hono/node-server` (fetch and Hono on node) refuses some requests itself, before there is a
 * `Request` for any handler: a `Host` it cannot parse, a backslash in the path, `*`. The reference
 * app gives it `nodeServerErrorResponse`, so those are the 400 document (`bad-request`) node's own
 * parser refusals get; the Hono example, served as Hono's docs show, answers its empty 400.
 */
const SERVERS = [
  ...ADAPTERS.map((adapter) => ({
    name: `the reference app through ${adapter}`,
    start: () => serve(adapter, referenceApp().app, 0),
    bridge: adapter === 'fetch' || adapter === 'hono' ? ('document' as const) : undefined,
  })),
  ...EXAMPLES.map((example) => ({
    name: `the ${example} example`,
    start: () => serveExample(example, configFromEnv({ RATE_LIMIT_MAX: '100000' }), 0),
    bridge: example === 'hono' ? ('empty' as const) : undefined,
  })),
];

/** A 400 error document with `code`. */
function refused(reply: RawReply, code: string) {
  expect(reply.status, reply.text).toBe(400);
  const document = JSON.parse(reply.body);
  assertJsonApi(document);
  expect(document.errors[0].code, reply.text).toBe(code);
  return document.errors[0];
}

describe.each(SERVERS)('$name', ({ start, bridge }) => {
  let served: Served;
  let token: string;
  beforeAll(async () => {
    served = await start();
    token = await bearer('1');
  });
  afterAll(() => served.close());
  const send = (text: string) => exchange(served.port, text);
  /** A 400 with `code`, or the bridge's own 400 where it refuses the request before any handler. */
  const refusedHere = (reply: RawReply, code: string) => {
    if (bridge === 'empty') expect([reply.status, reply.body]).toEqual([400, '0\r\n\r\n']);
    else refused(reply, bridge === 'document' ? 'bad-request' : code);
  };

  it('answers two Host fields with 400, whichever comes first (RFC 9112 section 3.2)', async () => {
    for (const fields of [
      ['Host: x', 'Host: evil.example'],
      ['Host: evil.example', 'Host: x'],
      ['Host: x', 'Host: x'],
    ]) {
      const error = refused(await send(request('GET /books/1', fields)), 'invalid-header');
      expect(error.source).toEqual({ header: 'Host' });
    }
    expect((await send(request('GET /books/1'))).status).toBe(200);
  });

  it('answers a Host that is no host with 400', async () => {
    for (const host of ['a b', 'x/y', 'x, y', 'x@y']) {
      refusedHere(await send(request('GET /books/1', [`Host: ${host}`])), 'invalid-header');
    }
  });

  it('sends a path with dot segments to the same path without them (308), query kept', async () => {
    for (const [target, location] of [
      ['/x/../books', '/books'],
      ['/%2e%2e/books', '/books'],
      ['/books/./1', '/books/1'],
      ['/books/%2E/1?x=1', '/books/1?x=1'],
      ['/books/1/..', '/books/'],
      ['/x/.%2e/books/.', '/books/'],
    ]) {
      const reply = await send(request(`GET ${target}`));
      expect([reply.status, reply.headers.location], target).toEqual([308, location]);
    }
    // A write is not run at the dotted path: it is sent on, method and body kept (308).
    const reply = await send(
      request(
        'POST /x/../orders',
        ['Host: x', `Authorization: ${token}`, 'Content-Type: application/json', 'Content-Length: 2'],
        '{}',
      ),
    );
    expect([reply.status, reply.headers.location]).toEqual([308, '/orders']);
  });

  it('routes an absolute-form target by its path (RFC 9112 section 3.2.2), as its origin-form', async () => {
    const plain = await send(request('GET /books/1'));
    for (const target of ['http://evil.example/books/1', 'https://x:8443/books/1']) {
      const reply = await send(request(`GET ${target}`));
      expect([reply.status, reply.body], target).toEqual([200, plain.body]);
    }
    expect((await send(request('GET http://x/x/../books'))).headers.location).toBe('/books');
  });

  it('refuses a target that names no resource here: another scheme, userinfo, `*`, a fragment, a backslash', async () => {
    for (const line of ['GET http://user@x/books/1', 'GET /books/1#top', 'GET /books?x=1#top']) {
      refused(await send(request(line)), 'invalid-target');
    }
    for (const line of ['GET ftp://x/books/1', 'GET *', 'OPTIONS *', 'GET /books\\1']) {
      refusedHere(await send(request(line)), 'invalid-target');
    }
  });

  it('answers a method it does not know with 405 and Allow on a known path, 404 elsewhere', async () => {
    for (const method of ['PROPFIND', 'PURGE', 'MKCOL']) {
      const reply = await send(request(`${method} /books/1`));
      expect([reply.status, reply.headers.allow], method).toEqual([405, 'GET, HEAD, OPTIONS']);
      assertJsonApi(JSON.parse(reply.body));
      expect((await send(request(`${method} /nowhere`))).status, method).toBe(404);
    }
  });
});

/**
 * How `rest-conventions/adapters/express` catches what an Express route writes (`capture` in
 * src/adapters/express/index.ts): every way of writing a response through node's API reaches the
 * primitives as one response and the client as what the primitives made of it.
 */
import http from 'node:http';
import express from 'express';
import createError from 'http-errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../examples/reference-app/serve.js';
import { conventions, conventionsErrors } from '../../src/adapters/express/index.js';
import { conditional } from '../../src/caching/index.js';
import { defineMiddleware } from '../../src/core/compose.js';
import { securityHeaders } from '../../src/security/index.js';

/** What the primitives saw of each route's response, by path. */
const seen = new Map<string, { status: number; body: string; headers: Record<string, string> }>();
const observe = defineMiddleware({
  after: (ctx, response) => {
    const raw = response.raw;
    const body = raw instanceof Uint8Array ? Buffer.from(raw).toString('latin1') : String(raw ?? '');
    seen.set(ctx.request.path, { status: response.status, body, headers: { ...response.headers } });
    // A primitive that changes a header the route set, and one that adds its own.
    if (response.headers['x-changed'] !== undefined) response.headers['x-changed'] = 'by the primitive';
    response.headers['x-added'] = 'yes';
    return response;
  },
});

/** Settles when a route's callbacks have run, by name. */
const called = new Map<string, Promise<void>>();
function callback(name: string): () => void {
  let done!: () => void;
  called.set(name, new Promise<void>((resolve) => (done = resolve)));
  return () => done();
}

let served: Served;
let servedWrapped: Served;
let servedBare: Served;
let base: string;

const inner = defineMiddleware({
  after: (_ctx, response) => {
    response.headers['x-inner'] = response.headers['x-added'] ?? 'first';
    return response;
  },
});

beforeAll(async () => {
  const app = express();
  // A header set before the primitives run: part of the route's response when the route answers.
  app.use((_req, res, next) => {
    res.set('x-early', 'before conventions');
    next();
  });
  app.use(conventions({ use: [securityHeaders(), conditional({}), observe] }));
  app.get('/chunks', (_req, res) => {
    res.type('text/plain');
    res.write('one, ', callback('write'));
    res.write(Buffer.from('two, '));
    res.write(new Uint8Array([116, 104, 114, 101, 101]), () => undefined);
    res.end(callback('end'));
  });
  app.get('/encoded', (_req, res) => {
    res.type('text/plain; charset=latin1');
    res.write('caf\u00e9 ', 'latin1');
    res.end('aGVsbG8=', 'base64');
  });
  app.get('/one-string', (_req, res) => {
    res.setHeader('content-type', 'text/plain; charset=utf-8');
    res.end('caf\u00e9 \u263a');
  });
  app.get('/write-head-object', (_req, res) => {
    res.setHeader('x-changed', 'by the route');
    res.writeHead(201, { 'content-type': 'text/plain', 'x-head': 'object' });
    res.end('made');
  });
  app.get('/write-head-array', (_req, res) => {
    res.writeHead(202, 'Accepted', ['content-type', 'text/plain', 'x-head', 'array']);
    res.end(Buffer.from('queued'), callback('end-buffer'));
  });
  app.get('/cookies', (_req, res) => {
    res.cookie('a', '1', { httpOnly: true });
    res.cookie('b', '2');
    res.json({ cookies: 2 });
  });
  app.get('/json', (_req, res) => {
    res.json({ hello: 'world' });
  });
  app.get('/empty', (_req, res) => {
    res.status(204).end();
  });
  app.get('/thrown', () => {
    throw createError(404, 'No teapot here.');
  });
  // A route with its own conventions inside the app's: both sets of primitives apply.
  app.get('/nested', conventions({ use: [inner] }), (_req, res) => {
    res.json({ nested: true });
  });
  // Sub-apps: mounted with app.use (inherits the app's response) and called as a plain handler.
  const mounted = express();
  mounted.get('/hello', (_req, res) => res.json({ from: 'mounted' }));
  app.use('/mounted', mounted);
  const plain = express();
  plain.get('/plain/hello', (_req, res) => res.json({ from: 'plain' }));
  app.get('/plain/hello', plain);
  app.use(conventionsErrors());
  served = await listen(http.createServer(app), 0);

  // A middleware before the conventions that wraps `res.end`, as compression does.
  const wrapped = express();
  wrapped.use((_req, res, next) => {
    const end = res.end;
    res.end = function wrappedEnd(this: typeof res, ...args: unknown[]) {
      this.setHeader('x-wrapped-end', String(Number(this.getHeader('x-wrapped-end') ?? 0) + 1));
      return end.apply(this, args as never);
    } as typeof res.end;
    next();
  });
  wrapped.use(conventions({ use: [securityHeaders(), observe] }));
  wrapped.get('/wrapped', (_req, res) => {
    res.type('text/plain');
    res.write('several ');
    res.end('chunks');
  });
  servedWrapped = await listen(http.createServer(wrapped), 0);

  // An app without the conventions, in the same process: its responses go out as written.
  const bare = express();
  bare.get('/bare', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'x-bare': 'yes' });
    res.write('as ', callback('bare-write'));
    res.end('written', callback('bare-end'));
  });
  servedBare = await listen(http.createServer(bare), 0);
  base = `http://127.0.0.1:${served.port}`;
});
afterAll(async () => {
  await served?.close();
  await servedWrapped?.close();
  await servedBare?.close();
});

describe('the Express driver catches the route’s response', () => {
  it('joins several res.write chunks (string, Buffer, Uint8Array) and calls their callbacks', async () => {
    const response = await fetch(`${base}/chunks`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('one, two, three');
    expect(response.headers.get('content-length')).toBe('15');
    expect(response.headers.get('transfer-encoding')).toBeNull();
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(seen.get('/chunks')?.body).toBe('one, two, three');
    await called.get('write');
    await called.get('end');
  });

  it('decodes strings in the encoding they were written with', async () => {
    const response = await fetch(`${base}/encoded`);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.toString('latin1')).toBe('caf\u00e9 hello');
    expect(bytes.byteLength).toBe(10);
    expect(response.headers.get('content-length')).toBe('10');
  });

  it('sends one string written with res.end as UTF-8', async () => {
    const response = await fetch(`${base}/one-string`);
    expect(await response.text()).toBe('caf\u00e9 \u263a');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength('caf\u00e9 \u263a')));
    expect(response.headers.get('etag')).toMatch(/^"/);
  });

  it('takes the status and headers of writeHead, as an object or a flat array', async () => {
    const object = await fetch(`${base}/write-head-object`);
    expect(object.status).toBe(201);
    expect(object.headers.get('x-head')).toBe('object');
    expect(await object.text()).toBe('made');
    expect(seen.get('/write-head-object')?.headers['x-changed']).toBe('by the route');
    expect(object.headers.get('x-changed')).toBe('by the primitive');
    expect(object.headers.get('x-added')).toBe('yes');

    const array = await fetch(`${base}/write-head-array`);
    expect(array.status).toBe(202);
    expect(array.headers.get('x-head')).toBe('array');
    expect(array.headers.get('content-type')).toBe('text/plain');
    expect(await array.text()).toBe('queued');
    await called.get('end-buffer');
  });

  it('keeps every Set-Cookie line apart', async () => {
    const response = await fetch(`${base}/cookies`);
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/; HttpOnly', 'b=2; Path=/']);
    expect(await response.json()).toEqual({ cookies: 2 });
    expect(seen.get('/cookies')?.headers['set-cookie']).toBeUndefined();
  });

  it('keeps headers set before the primitives and drops those a primitive removed', async () => {
    const response = await fetch(`${base}/json`);
    expect(response.headers.get('x-early')).toBe('before conventions');
    // Express sends X-Powered-By; the security headers primitive removes it.
    expect(seen.get('/json')?.headers['x-powered-by']).toBe('Express');
    expect(response.headers.get('x-powered-by')).toBeNull();
    expect(await response.json()).toEqual({ hello: 'world' });
  });

  it('answers 304 to the ETag of the route’s own response, without a body', async () => {
    const first = await fetch(`${base}/json`);
    const etag = first.headers.get('etag')!;
    const again = await fetch(`${base}/json`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('content-length')).toBeNull();
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
  });

  it('sends no body for HEAD and 204', async () => {
    const head = await fetch(`${base}/json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const empty = await fetch(`${base}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.headers.get('content-length')).toBeNull();
    expect(empty.headers.get('x-frame-options')).toBe('DENY');
  });

  it('renders an error thrown in a route, with the primitives’ headers', async () => {
    const response = await fetch(`${base}/thrown`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(JSON.stringify(await response.json())).toContain('No teapot here.');
  });

  it('runs a route’s own conventions inside the app’s, innermost first', async () => {
    const response = await fetch(`${base}/nested`);
    expect(await response.json()).toEqual({ nested: true });
    // The route's primitive ran first (no x-added yet), then the app's.
    expect(response.headers.get('x-inner')).toBe('first');
    expect(response.headers.get('x-added')).toBe('yes');
    expect(seen.get('/nested')?.headers['x-inner']).toBe('first');
  });

  it('catches routes of sub-apps, mounted or called as a handler', async () => {
    for (const [path, from] of [
      ['/mounted/hello', 'mounted'],
      ['/plain/hello', 'plain'],
    ]) {
      const response = await fetch(`${base}${path}`);
      expect(await response.json(), path).toEqual({ from });
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('x-added'), path).toBe('yes');
    }
  });

  it('catches the route’s response under a res.end wrapped before the conventions', async () => {
    const response = await fetch(`http://127.0.0.1:${servedWrapped.port}/wrapped`);
    expect(await response.text()).toBe('several chunks');
    expect(seen.get('/wrapped')?.body).toBe('several chunks');
    // The wrapper sees only the primitives' answer: the route's own end was caught before it.
    expect(response.headers.get('x-wrapped-end')).toBe('1');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  it('leaves the responses of an app without the conventions as they are written', async () => {
    const response = await fetch(`http://127.0.0.1:${servedBare.port}/bare`);
    expect(response.headers.get('x-bare')).toBe('yes');
    expect(response.headers.get('x-frame-options')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(await response.text()).toBe('as written');
    await called.get('bare-write');
    await called.get('bare-end');
  });
});

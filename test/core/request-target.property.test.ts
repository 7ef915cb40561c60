import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { isSafeMethod, METHODS, nonIdempotentMethods, takesContent } from '../../src/http/methods.js';
import { decideRequestTarget, originForm, removeDotSegments } from '../../src/http/request-target.js';
import { idempotency, memoryIdempotencyStore } from '../../src/idempotency/index.js';
import { recordingLogger, send } from './send.js';

/** Segments mixing every spelling of a dot segment with plain and empty ones. */
const segment = fc.constantFrom(
  '.',
  '..',
  '%2e',
  '%2E',
  '.%2e',
  '%2e.',
  '%2E%2e',
  'a',
  'b',
  '',
  'a.',
  '..a',
  '%2ex',
);
const path = fc.array(segment, { maxLength: 8 }).map((segments) => `/${segments.join('/')}`);

describe('removeDotSegments', () => {
  test.prop([path])('removes dot segments as the WHATWG URL parser does (an independent model)', (p) => {
    expect(removeDotSegments(p)).toBe(new URL(`http://h${p}`).pathname);
  });

  test.prop([path])('leaves no dot segment behind, and is idempotent', (p) => {
    const normal = removeDotSegments(p);
    expect(decideRequestTarget({ path: normal, search: '', host: 'h' })).toBeUndefined();
    expect(removeDotSegments(normal)).toBe(normal);
  });

  it.each([
    ['/a/b/c/./../../g', '/a/g'],
    ['/mid/content=5/../6', '/mid/6'],
    ['/..', '/'],
    ['/a/b/..', '/a/'],
  ])('%s is %s (RFC 3986 section 5.2.4)', (input, output) => {
    expect(removeDotSegments(input)).toBe(output);
  });
});

describe('decideRequestTarget', () => {
  const host = fc.oneof(
    fc.domain(),
    fc.ipV4(),
    fc.ipV6().map((address) => `[${address}]`),
  );
  const port = fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined });

  test.prop([host, port])('routes any one host name or address, with or without a port', (name, number) => {
    const value = number === undefined ? name : `${name}:${number}`;
    expect(decideRequestTarget({ path: '/books', search: '', host: value })).toBeUndefined();
  });

  test.prop([host, host])('refuses two Host fields, as a fetch Headers or node joins them', (a, b) => {
    const decision = decideRequestTarget({ path: '/books', search: '', host: `${a}, ${b}` });
    expect(decision).toMatchObject({ kind: 'refuse', code: 'invalid-header' });
  });

  test.prop([path, fc.constantFrom('', 'x=1', 'page[number]=2')])(
    'sends a path with dot segments to the URL parser’s path, under the mount point, query kept',
    (p, search) => {
      const decision = decideRequestTarget({ path: p, search, host: 'h', mountPath: '/api' });
      const resolved = new URL(`http://h/api${p}${search === '' ? '' : `?${search}`}`);
      if (decision === undefined) expect(resolved.pathname).toBe(`/api${p}`);
      else
        expect(decision).toEqual({ kind: 'normalize', location: `${resolved.pathname}${resolved.search}` });
    },
  );

  it('takes no Host as nothing to refuse (HTTP/1.0; node refuses an HTTP/1.1 request without one)', () => {
    expect(decideRequestTarget({ path: '/', search: '', host: undefined })).toBeUndefined();
  });
});

describe('originForm', () => {
  const target = fc.webPath().chain((p) => fc.webQueryParameters().map((q) => ({ p, q })));
  test.prop([fc.constantFrom('http', 'https', 'HTTP', 'Https'), fc.domain(), target])(
    'is the path and query of an absolute-form target, as the URL parser reads them',
    (scheme, domain, { p, q }) => {
      const absolute = `${scheme}://${domain}${p}${q === '' ? '' : `?${q}`}`;
      const url = new URL(absolute);
      // The parser also resolves dot segments and escapes; compare where it leaves the path as sent.
      fc.pre(url.pathname === (p === '' ? '/' : p) && url.search === (q === '' ? '' : `?${q}`));
      expect(originForm(absolute)).toBe(`${url.pathname}${url.search}`);
    },
  );

  it.each([
    ['/books?x', '/books?x'],
    ['http://x', '/'],
    ['http://x?a=1', '/?a=1'],
    ['ftp://x/books', 'ftp://x/books'],
    ['http://user@x/books', 'http://user@x/books'],
    ['*', '*'],
  ])('%s is %s', (input, output) => {
    expect(originForm(input)).toBe(output);
  });
});

describe('the method table (RFC 9110 section 9.2, RFC 10008 section 2)', () => {
  it('knows the safe, the idempotent and the content methods, and takes an unknown one as neither', () => {
    expect(Object.keys(METHODS).filter(isSafeMethod)).toEqual(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'QUERY']);
    expect(nonIdempotentMethods()).toEqual(['POST', 'PATCH']);
    expect(Object.keys(METHODS).filter(takesContent)).toEqual(['PUT', 'POST', 'PATCH', 'QUERY']);
    expect([isSafeMethod('PROPFIND'), takesContent('PROPFIND')]).toEqual([false, false]);
  });

  it('decides which methods an Idempotency-Key guards', async () => {
    const app = createApp({ logger: recordingLogger() });
    let runs = 0;
    for (const method of ['POST', 'PATCH', 'PUT']) {
      app.route({
        method,
        path: '/things',
        use: [idempotency({ store: memoryIdempotencyStore(), required: true })],
        handler: () => json(200, { meta: { runs: ++runs } }),
      });
    }
    const statuses = [];
    for (const method of ['POST', 'PATCH', 'PUT']) statuses.push((await send(app, method, '/things')).status);
    // A key is required of the methods a retry may repeat, not of PUT.
    expect(statuses).toEqual([400, 400, 200]);
  });
});

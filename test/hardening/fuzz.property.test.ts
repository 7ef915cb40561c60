import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeServer } from '../../src/adapters/node.js';
import { bearer, referenceApp } from '../support/reference-app.js';
import { assertJsonApi, assertProblem } from '../support/schemas.js';
import { exchange, listen, type RawReply } from './raw-http.js';

/**
 * Hostile requests against the reference app over a real socket, written byte for byte (so paths,
 * header values and bodies may be anything node's parser lets through). Properties: never a 5xx,
 * the server keeps answering, every error is a valid error document without internals, a rejected
 * request changes no store, and the heap stays bounded. fast-check prints the seed and the
 * shrunk counterexample of a failure; `FUZZ_RUNS` raises the number of runs.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

let port: number;
let close: () => Promise<void>;
let owner: string;
let other: string;
let keepAlive: http.Agent;

beforeAll(async () => {
  const { app } = referenceApp();
  ({ port, close } = await listen(app, createNodeServer(app)));
  keepAlive = new http.Agent({ keepAlive: true });
  owner = await bearer('1', 'standards:read standards:write users:read');
  other = await bearer('2');
  // Something to conflict with, patch and delete: an order of user 1 and a standard.
  for (const body of [
    { path: '/orders', doc: { data: { type: 'orders', attributes: { bookId: 1, quantity: 2 } } } },
    {
      path: '/api/v1/standards/',
      doc: { data: { type: 'standards', attributes: { code: 'ISO-8601', name: 'Dates and times' } } },
      key: '"fuzz-seed"',
    },
  ]) {
    const status = await get(body.path, 'POST', JSON.stringify(body.doc), body.key);
    expect(status.status).toBe(201);
  }
});
afterAll(async () => {
  keepAlive.destroy();
  await close();
});

/** A plain request through a keep-alive agent, for the snapshots. */
function get(
  path: string,
  method = 'GET',
  body?: string,
  key?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: owner, accept: 'application/vnd.api+json' };
    if (body !== undefined) {
      headers['content-type'] = 'application/vnd.api+json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    if (key !== undefined) headers['idempotency-key'] = key;
    const req = http.request({ host: '127.0.0.1', port, path, method, headers, agent: keepAlive }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What the stores hold, as the app's own API shows it to user 1. */
async function snapshot(): Promise<string> {
  const paths = ['/books', '/books/1', '/users/1', '/users/1/orders', '/api/v1/standards/'];
  const answers = await Promise.all(paths.map((path) => get(path)));
  for (const [i, answer] of answers.entries()) {
    // The server still answers, and answers well.
    expect(answer.status, `${paths[i]} after a hostile request`).toBe(200);
  }
  return answers.map((a) => a.text).join('\n');
}

// --- generators -------------------------------------------------------------------------------

const segment = fc.oneof(
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '%2E%2E%2F',
    '%00',
    '%',
    '%zz',
    '%c0%af',
    '%ff',
    '%F0%9F%98%80',
    '',
    ';x=1',
    '%2F',
    '1e308',
    '-1',
    '0x10',
    '9007199254740993',
    '__proto__',
    'constructor',
    'é',
    '😀',
    '\u202e',
  ),
  fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/[\s?#]/g, '')),
  fc.integer({ min: 1000, max: 9000 }).map((n) => 'a'.repeat(n)),
);
const prefix = fc.constantFrom(
  '/',
  '/books',
  '/books/1',
  '/orders',
  '/orders/1',
  '/users/1',
  '/users/2',
  '/users/1/orders',
  '/users/1/orders/1',
  '/users/1/accountType',
  '/users/1/account-type',
  '/v1/users/1',
  '/v2/users/1',
  '/api/v1/standards/',
  '/api/v1/standards/1',
);
const path = fc
  .tuple(prefix, fc.array(segment, { maxLength: 3 }))
  .map(([start, rest]) => [start, ...rest].join('/').replace(/^\/\//, '/'));

const queryValue = fc.oneof(
  fc.constantFrom('', '%', '%00', '%zz', '-1', '0', '1e308', 'NaN', '__proto__', 'a,b,,c', '%E2%82', '🙂'),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);
const queryName = fc.constantFrom(
  'author',
  'page[size]',
  'page[number]',
  'page[cursor]',
  'page[',
  'sort',
  'include',
  'filter[x]',
  'fields[books]',
  'fields[standards]',
  '__proto__',
  'constructor[prototype]',
  'x',
);
const query = fc
  .array(fc.tuple(queryName, queryValue), { maxLength: 4 })
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([n, v]) => `${n}=${v}`).join('&')}`));

/** Credentials: user 1 with every scope, user 2 without, and several kinds of garbage. */
const authorization = fc.constantFrom<() => string>(
  () => owner,
  () => other,
  () => 'Bearer a.b.c',
  () => 'Bearer ',
  () => 'Basic dXNlcjpwYXNz',
  () => `${owner.slice(0, -3)}abc`,
  () => 'bearer',
);
const headerValue = (values: readonly string[]) =>
  fc.oneof(
    fc.constantFrom(...values),
    fc.string({ maxLength: 30 }).map((s) => s.replace(/[\r\n\0]/g, '')),
  );
const header = fc.oneof(
  fc.tuple(
    fc.constant('accept'),
    headerValue([
      'application/vnd.api+json',
      'application/json',
      '*/*',
      'text/html',
      'application/vnd.api+json; ext="x"',
      'application/vnd.api+json;q=0',
      'application/vnd.api+json;version=2',
      'application/vnd.api+json;version=abc',
      ';;;',
    ]),
  ),
  fc.tuple(
    fc.constant('content-type'),
    headerValue([
      'application/vnd.api+json',
      'application/json',
      'application/json; charset=latin1',
      'application/json; charset=utf-8',
      'application/vnd.api+json; ext=foo',
      'text/plain',
      'multipart/form-data; boundary=x',
      '',
    ]),
  ),
  fc.tuple(
    fc.constantFrom('if-match', 'if-none-match'),
    headerValue(['*', '"1"', 'W/"1"', '*, "1"', '"unterminated', 'W/', '"a", , "b"']),
  ),
  fc.tuple(
    fc.constantFrom('if-modified-since', 'if-unmodified-since'),
    headerValue(['Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'yesterday', '0']),
  ),
  fc.tuple(
    fc.constant('idempotency-key'),
    headerValue(['"k1"', 'k1', '""', `"${'k'.repeat(300)}"`, '"a", "b"']),
  ),
  fc.tuple(fc.constant('x-forwarded-for'), headerValue(['127.0.0.1', '::1', 'garbage, 10.0.0.1'])),
  fc.tuple(
    fc.constantFrom('range', 'cookie', 'x-http-method-override'),
    headerValue(['bytes=0-1', 'a=b', 'DELETE']),
  ),
);

/** JSON text kept as text: duplicate keys and `__proto__` survive, unlike with `JSON.stringify`. */
const attributeValue = fc.oneof(
  fc.constantFrom(
    '1',
    '2',
    '-1',
    '0',
    '1e308',
    '1' + '0'.repeat(400),
    '-0',
    '9007199254740993',
    '2.5',
    'null',
  ),
  fc.constantFrom('true', '"1"', '[]', '{}', '{"__proto__":{"admin":true}}'),
  fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)),
);
const orderLike = fc
  .record({
    type: fc.constantFrom('"orders"', '"standards"', '"books"', '1', 'null'),
    bookId: attributeValue,
    quantity: attributeValue,
    code: fc.constantFrom('"ISO-9001"', '"x"', '"ISO-8601"', '1'),
    name: attributeValue,
    extra: fc.constantFrom(
      '',
      ',"__proto__":{"polluted":true}',
      ',"quantity":3',
      ',"constructor":{"prototype":{}}',
    ),
  })
  .map(
    (r) =>
      `{"data":{"type":${r.type},"attributes":{"bookId":${r.bookId},"quantity":${r.quantity},` +
      `"code":${r.code},"name":${r.name}${r.extra}}}}`,
  );
const body = fc.oneof(
  fc.constant(undefined),
  orderLike.map((text) => Buffer.from(text)),
  fc.integer({ min: 1, max: 5000 }).map((n) => Buffer.from('['.repeat(n) + ']'.repeat(n))),
  fc.integer({ min: 1, max: 3000 }).map((n) => Buffer.from(`{"data":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`)),
  fc.tuple(orderLike, fc.nat()).map(([text, cut]) => Buffer.from(text.slice(0, cut % text.length))),
  orderLike.map((text) =>
    Buffer.concat([
      Buffer.from(text.slice(0, 40)),
      Buffer.from([0xff, 0xfe, 0xc0]),
      Buffer.from(text.slice(40)),
    ]),
  ),
  fc.jsonValue({ maxDepth: 4 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
);

interface Hostile {
  readonly method: string;
  readonly target: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly auth: Array<() => string>;
  readonly body: Buffer | undefined;
}

const hostile: fc.Arbitrary<Hostile> = fc.record({
  method: fc.oneof(
    fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'),
    fc.stringMatching(/^[A-Z]{1,12}$/),
  ),
  target: fc.tuple(path, query).map(([p, q]) => p + q),
  headers: fc.array(header, { maxLength: 5 }),
  // Zero, one or two Authorization fields.
  auth: fc.array(authorization, { maxLength: 2 }),
  body,
});

/** The request's bytes: the target and header values as UTF-8, `Connection: close` to end it. */
function encode(request: Hostile): Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close'];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  for (const auth of request.auth) lines.push(`authorization: ${auth()}`);
  if (request.body !== undefined) lines.push(`content-length: ${request.body.byteLength}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8');
  return request.body === undefined ? head : Buffer.concat([head, request.body]);
}

const INTERNAL_KEYS = new Set([
  'internalSku',
  'stack',
  'cause',
  'fingerprint',
  'token',
  'errno',
  'syscall',
  'sql',
]);

function internalKeys(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) internalKeys(item, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (INTERNAL_KEYS.has(key)) found.push(key);
      internalKeys(inner, found);
    }
  }
  return found;
}

/** The properties every answer to a hostile request has. */
function checkReply(request: Hostile, reply: RawReply): void {
  const status = reply.status;
  expect(status, `no status line; the connection was ${reply.ended}`).toBeTypeOf('number');
  expect(status!, reply.text.slice(0, 300)).toBeLessThan(500);
  const text = Buffer.from(reply.body, 'latin1').toString('utf8');
  // No stack frames, source paths or error class names in any body.
  expect(text).not.toMatch(/\bat \S+ \(|\.ts:\d+|node_modules|\/src\/|TypeError|SyntaxError|RangeError/);
  if (status! < 400 || request.method === 'HEAD') return;
  const type = reply.headers['content-type'] ?? '';
  expect(text, `an error without a document: ${reply.text.slice(0, 300)}`).not.toBe('');
  const document = JSON.parse(text) as unknown;
  if (type.startsWith('application/problem+json')) assertProblem(document);
  else {
    expect(type).toMatch(/^application\/(vnd\.api\+)?json/);
    assertJsonApi(document);
    expect((document as { errors?: unknown[] }).errors?.length).toBeGreaterThan(0);
  }
  expect(internalKeys(document)).toEqual([]);
}

describe('fuzzing the reference app over a socket', () => {
  it('never 5xx, errors are valid documents without internals, rejected requests change nothing', async () => {
    let before = await snapshot();
    await fc.assert(
      fc.asyncProperty(hostile, async (request) => {
        const reply = await exchange(port, encode(request));
        checkReply(request, reply);
        const after = await snapshot();
        // A refused request (4xx) or a redirect leaves every store as it was.
        if (reply.status! >= 300) expect(after).toBe(before);
        before = after;
      }),
      { numRuns: RUNS },
    );
  }, 60_000);

  it('keeps the heap bounded under a stream of hostile requests', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const requests = fc.sample(hostile, { numRuns: 400, seed: 18 });
    // Bodies that the idempotency store would keep if it stored them whole: unknown fields, fresh keys.
    const wide = `{"data":{"type":"orders","attributes":{${Array.from({ length: 200 }, (_, i) => `"f${i}":1`).join(',')}}}}`;
    const heavy = (i: number): Hostile => ({
      method: 'POST',
      target: '/orders',
      headers: [
        ['content-type', 'application/vnd.api+json'],
        ['idempotency-key', `"heap-${i}"`],
      ],
      auth: [() => owner],
      body: Buffer.from(wide),
    });
    const round = async (offset: number) => {
      for (let i = 0; i < 200; i++) {
        const request = i % 2 === 0 ? heavy(offset + i) : requests[(offset + i) % requests.length]!;
        checkReply(request, await exchange(port, encode(request)));
      }
    };
    await round(0); // warm up: code paths compiled, caches filled
    gc();
    const start = process.memoryUsage().heapUsed;
    await round(1000);
    await round(2000);
    gc();
    const grown = process.memoryUsage().heapUsed - start;
    // 200 more refusals stored with fresh keys (each a document of 200 errors, ~30 KB) and 200
    // hostile requests: what they may keep is bounded by the stores' caps, not by what was sent.
    expect(grown).toBeLessThan(32 * 1024 * 1024);
    await snapshot();
  }, 60_000);
});

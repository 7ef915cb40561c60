import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, type AdapterName, type Served, serve } from '../../examples/reference-app/serve.js';
import { type Answer, answerOf, type Exchange, referenceAppExchanges } from '../support/exchanges.js';
import { bearer, referenceApp } from '../support/reference-app.js';

async function exchange(port: number, request: Exchange): Promise<Answer> {
  const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  return answerOf(response);
}

const servers = new Map<AdapterName, Served>();

// A slow refill (one request per 86.4 s), so `RateLimit` counts requests, not the time between them.
const LIMITS = { RATE_LIMIT_MAX: '1000', RATE_LIMIT_WINDOW: '86400' };

beforeAll(async () => {
  for (const adapter of ADAPTERS) servers.set(adapter, await serve(adapter, referenceApp(LIMITS).app, 0));
});
afterAll(async () => {
  for (const served of servers.values()) await served.close();
});

/** The same exchanges, in order, against every adapter; each adapter's answers. */
async function everywhere(requests: readonly Exchange[]): Promise<Map<AdapterName, Answer[]>> {
  const answers = new Map<AdapterName, Answer[]>();
  for (const [adapter, served] of servers) {
    const list: Answer[] = [];
    for (const request of requests) list.push(await exchange(served.port, request));
    answers.set(adapter, list);
  }
  return answers;
}

const remaining = (response: Response) =>
  Number(/;r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1]);

describe('the reference app answers the same on every adapter', () => {
  it('keys anonymous callers by their address, not all as ip:unknown', async () => {
    for (const [adapter, { port }] of servers) {
      const first = remaining(await fetch(`http://127.0.0.1:${port}/books/1`));
      const other = remaining(await fetch(`http://[::1]:${port}/books/1`));
      const second = remaining(await fetch(`http://127.0.0.1:${port}/books/1`));
      expect(second, adapter).toBe(first - 1);
      expect(other, adapter).toBe(999);
    }
  });

  it('books, conditional GET, orders with idempotency and ownership, errors', async () => {
    const alice = await bearer('alice-everywhere');
    const bob = await bearer('bob-everywhere');
    // Each adapter has its own app (its own stores), so the same sequence creates the same ids.
    const answers = await everywhere(referenceAppExchanges(alice, bob));
    const node = answers.get('node')!;
    expect(node.map((a) => a.status)).toEqual([
      200, 200, 304, 200, 200, 404, 405, 204, 406, 201, 201, 422, 200, 404, 401, 400,
    ]);
    expect(node[9]!.headers.location).toBe('/orders/1');
    expect(node[10]!.body).toBe(node[9]!.body);
    for (const adapter of ADAPTERS) expect(answers.get(adapter), adapter).toEqual(node);
  });
});

const methods = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS');
const segment = fc.oneof(
  fc.constantFrom('books', 'orders', 'users', 'api', 'v1', 'standards', '1', '2', '999', 'accountType', ''),
  fc.stringMatching(/^[a-z0-9%._~-]{1,8}$/),
);
const headerSets = fc.record(
  {
    accept: fc.constantFrom(
      'application/json',
      'application/vnd.api+json',
      'application/problem+json',
      'text/html',
      '*/*',
    ),
    'content-type': fc.constantFrom('application/json', 'application/vnd.api+json', 'text/plain'),
    'if-none-match': fc.constantFrom('*', '"1-1768469400000"', 'W/"x"'),
    'idempotency-key': fc.constantFrom('k1', 'k2', ''),
  },
  { requiredKeys: [] },
);
const bodies = fc.option(fc.oneof(fc.json({ maxDepth: 2 }), fc.string({ maxLength: 40 })), {
  nil: undefined,
});

// Convention headers: everything but what differs per response; compared with the body's status.
describe('random requests', () => {
  test.prop([methods, fc.array(segment, { minLength: 1, maxLength: 4 }), headerSets, bodies], {
    numRuns: 40,
  })(
    'get the same status, headers and body bytes from all six adapters',
    async (method, segments, headers, body) => {
      const request: Exchange = {
        method,
        path: `/${segments.join('/')}`,
        headers,
        ...(body === undefined || method === 'GET' || method === 'HEAD' ? {} : { body }),
      };
      const answers = await everywhere([request]);
      const node = answers.get('node')![0]!;
      for (const adapter of ADAPTERS) expect(answers.get(adapter)![0], adapter).toEqual(node);
    },
  );
});

import { Redis } from 'ioredis';
import { BalancedPool, Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppProcess, startProcess } from '../support/app-process.js';
import { dropTablesUnder } from '../support/postgres.js';
import { bearer } from '../support/reference-app.js';
import { REDIS_URL, serviceAvailable, uniquePrefix } from '../support/services.js';

const available = (await serviceAvailable('PostgreSQL')) && (await serviceAvailable('Redis'));
const INSTANCES = 3;
const QUOTA = 60;

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary documents
  readonly body: any;
}

async function send(
  via: Pool | BalancedPool,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Reply> {
  const response = await via.request({
    method,
    path,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) flat[name] = String(value);
  return { status: response.statusCode, headers: flat, body: text === '' ? undefined : JSON.parse(text) };
}

describe.skipIf(!available)(`${INSTANCES} instances of the reference app (npm run cluster)`, () => {
  const prefix = uniquePrefix('cluster').toLowerCase();
  let cluster: AppProcess;
  let balanced: BalancedPool;
  let each: Pool[];
  const token: Record<string, string> = {};

  beforeAll(async () => {
    cluster = await startProcess(
      'examples/reference-app/cluster.ts',
      { STORE_PREFIX: prefix, RATE_LIMIT_MAX: String(QUOTA), RATE_LIMIT_WINDOW: '3600' },
      INSTANCES,
      [String(INSTANCES)],
    );
    balanced = new BalancedPool(cluster.urls as string[]);
    each = cluster.urls.map((url) => new Pool(url));
    for (const sub of ['1', '2', 'limited']) token[sub] = await bearer(sub);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([balanced?.close(), ...(each ?? []).map((p) => p.close())]);
    expect(await cluster?.stop('SIGINT')).toBe(0);
    await dropTablesUnder(prefix);
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('starts every instance on its own port, each ready with its stores', async () => {
    expect(new Set(cluster.urls).size).toBe(INSTANCES);
    for (const pool of each) {
      const ready = await send(pool, 'GET', '/health/ready', {});
      expect(ready.status).toBe(200);
      expect(ready.body.meta.stores).toEqual({ postgres: 'pass', redis: 'pass' });
      expect(ready.headers['cache-control']).toBe('no-store');
    }
  });

  it('loses and duplicates no order under a mixed workload, and every instance sees every order', async () => {
    const placed = new Map<string, Set<string>>();
    const work: Array<Promise<void>> = [];
    for (const sub of ['1', '2']) {
      placed.set(sub, new Set());
      for (let i = 0; i < 12; i++) {
        const headers: Record<string, string> = { authorization: token[sub]! };
        // A third of the orders are sent twice with one key, as a client retrying would.
        if (i % 3 === 0) headers['idempotency-key'] = `"mixed-${sub}-${i}"`;
        const tries = i % 3 === 0 ? 2 : 1;
        for (let t = 0; t < tries; t++) {
          work.push(
            send(balanced, 'POST', '/orders', headers, { bookId: 1 + (i % 14), quantity: 1 + i }).then(
              (r) => {
                if (r.status === 201) placed.get(sub)!.add(r.headers.location!);
                else expect(r.status).toBe(409); // the retry met the first still in progress
              },
            ),
          );
        }
        work.push(
          send(balanced, 'GET', `/books/${1 + (i % 14)}`, {}).then((r) => expect(r.status).toBe(200)),
        );
      }
    }
    await Promise.all(work);
    for (const [sub, locations] of placed) {
      expect(locations.size).toBe(12);
      for (const pool of each) {
        const listed = await send(pool, 'GET', `/users/${sub}/orders?page[size]=100`, {
          authorization: token[sub]!,
        });
        expect(listed.status).toBe(200);
        const ids = listed.body.data.map((o: { id: string }) => `/orders/${o.id}`).sort();
        expect(ids).toEqual([...locations].sort());
      }
    }
  });

  it('executes 30 concurrent POSTs with one key, spread over the instances, exactly once', async () => {
    const before = await send(each[0]!, 'GET', '/users/2/orders?page[size]=100', {
      authorization: token['2']!,
    });
    const headers = { authorization: token['2']!, 'idempotency-key': '"thirty"' };
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        send(each[i % INSTANCES]!, 'POST', '/orders', headers, { bookId: 2, quantity: 9 }),
      ),
    );
    const createdAt = new Set(replies.filter((r) => r.status === 201).map((r) => r.headers.location));
    expect(createdAt.size).toBe(1);
    for (const reply of replies) expect([201, 409]).toContain(reply.status);
    const after = await send(each[1]!, 'GET', '/users/2/orders?page[size]=100', {
      authorization: token['2']!,
    });
    expect(after.body.data.length).toBe(before.body.data.length + 1);
  });

  it('shares one rate limit: the quota holds across instances', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < QUOTA + 9; i++) {
      statuses.push(
        (await send(each[i % INSTANCES]!, 'GET', '/books', { authorization: token.limited! })).status,
      );
    }
    // Three separate limiters would have admitted all of them (23 each, under the quota).
    expect(statuses.filter((s) => s === 200).length).toBe(QUOTA);
    expect(statuses.slice(QUOTA)).toEqual(Array(9).fill(429));
  });

  it('accepts an ETag from one instance on another, and each serves the new version', async () => {
    const [a, b, c] = each as [Pool, Pool, Pool];
    const auth = { authorization: token['1']! };
    const placed = await send(a, 'POST', '/orders', auth, { bookId: 4, quantity: 1 });
    const path = placed.headers.location!;
    const fromC = await send(c, 'GET', path, auth);
    expect(fromC.status).toBe(200);
    expect(fromC.body.data.attributes).toEqual({ bookId: 4, quantity: 1 });
    const patched = await send(
      b,
      'PATCH',
      path,
      { ...auth, 'if-match': placed.headers.etag! },
      { quantity: 5 },
    );
    expect(patched.status).toBe(200);
    expect(patched.headers.etag).not.toBe(placed.headers.etag);
    const stale = await send(
      c,
      'PATCH',
      path,
      { ...auth, 'if-match': placed.headers.etag! },
      { quantity: 6 },
    );
    expect(stale.status).toBe(412);
    expect((await send(a, 'GET', path, { ...auth, 'if-none-match': patched.headers.etag! })).status).toBe(
      304,
    );
  });

  it('serves standards alike from every instance: keyed create, ETag, keyset pages, tombstones', async () => {
    const [a, b, c] = each as [Pool, Pool, Pool];
    const auth = { authorization: await bearer('1', 'standards:read standards:write') };
    const codes = ['C-1', 'C-2', 'C-3', 'C-4', 'C-5'];
    const locations: string[] = [];
    for (const [i, code] of codes.entries()) {
      const headers = { ...auth, 'idempotency-key': `"std-${code}"` };
      const body = { code, name: code };
      const first = await send(each[i % INSTANCES]!, 'POST', '/api/v1/standards/', headers, body);
      expect(first.status).toBe(201);
      const again = await send(each[(i + 1) % INSTANCES]!, 'POST', '/api/v1/standards/', headers, body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers.location).toBe(first.headers.location);
      locations.push(first.headers.location!);
    }
    // A walk over pages of two, each page from the next instance, meets every standard once, in order.
    const seen: string[] = [];
    let next: string | undefined = '/api/v1/standards/?sort=code&page[size]=2';
    for (let i = 0; next !== undefined; i++) {
      const page: Reply = await send(each[i % INSTANCES]!, 'GET', next, auth);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((s: { attributes: { code: string } }) => s.attributes.code));
      next = page.body.links.next;
    }
    expect(seen).toEqual(codes);
    const read = await send(a, 'GET', locations[0]!, auth);
    const ifMatch = { ...auth, 'if-match': read.headers.etag! };
    expect((await send(b, 'PATCH', locations[0]!, ifMatch, { name: 'New' })).status).toBe(200);
    expect((await send(c, 'PATCH', locations[0]!, ifMatch, { name: 'Old' })).status).toBe(412);
    for (const pool of each) {
      const response = await pool.request({ method: 'DELETE', path: locations[1]!, headers: auth });
      await response.body.dump();
      expect(response.statusCode).toBe(204);
    }
  });

  it('answers a repeated DELETE with 204 on every instance', async () => {
    const auth = { authorization: token['1']! };
    const placed = await send(each[0]!, 'POST', '/orders', auth, { bookId: 4, quantity: 1 });
    for (const pool of each) {
      const response = await pool.request({
        method: 'DELETE',
        path: placed.headers.location!,
        headers: auth,
      });
      await response.body.dump();
      expect(response.statusCode).toBe(204);
    }
  });
});

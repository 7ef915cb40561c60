import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppProcess, startReferenceApp } from '../support/app-process.js';
import { call } from '../support/http-call.js';
import { dropTablesUnder } from '../support/postgres.js';
import { bearer, type ServedReferenceApp, servedReferenceApp } from '../support/reference-app.js';
import { serviceAvailable, uniquePrefix } from '../support/services.js';

const available = await serviceAvailable('PostgreSQL');

/** The reference app's default `DATABASE_POOL_SIZE`. */
const POOL_SIZE = 10;
/** Keyed PATCHes sent at once by one user: three times the default pool. */
const BURST = 3 * POOL_SIZE;
/**
 * One connection per keyed write on PostgreSQL, from claim to completion (docs/idempotency.md,
 * "PostgreSQL: the record in the handler's transaction"): a keyed `PATCH /orders/{id}` loads the order
 * for its `If-Match` through the transaction its claim opened, so a burst of them never holds one
 * connection while waiting for a second. The app is wired as main.ts wires it, on the default pool.
 */

describe.runIf(available)('a burst of keyed PATCHes by one user on PostgreSQL', () => {
  const prefix = uniquePrefix('burst').toLowerCase();
  let app: ServedReferenceApp;

  beforeAll(async () => {
    app = await servedReferenceApp({
      DATA_STORE: 'postgres',
      IDEMPOTENCY_STORE: 'postgres',
      STORE_PREFIX: prefix,
      RATE_LIMIT_MAX: '1000000',
    });
  }, 30_000);
  afterAll(async () => {
    await app?.stop();
    await dropTablesUnder(prefix);
  }, 30_000);

  const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    call(app.url, method, path, headers, body);
  // No time is measured: speed is `npm run bench`'s. A request stuck behind a deadlocked pool (what
  // this guards against: 1.9 s stalls, 500s and 503s) waits for a connection until the pool's bound
  // refuses it with a 503 and a warning, so "200 and nothing logged" is the bound, the pool's own.
  // Which answers first, a read or the burst's last PATCH, is not checked: client and server share this
  // event loop, and on a busy machine a read answered with the burst's first round was seen to be
  // delivered after its last.
  it('answers every PATCH and another user’s reads without a 5xx or a log line, stays ready', async () => {
    const burster = await bearer(`burster-${prefix}`);
    const other = await bearer(`reader-${prefix}`);
    const orders: Array<{ path: string; etag: string }> = [];
    for (let i = 0; i < BURST; i++) {
      const made = await send('POST', '/orders', { authorization: burster }, { bookId: 1, quantity: 1 });
      expect(made.status).toBe(201);
      orders.push({ path: made.headers.get('location')!, etag: made.headers.get('etag')! });
    }

    const burst = (round: number, quantity: number) =>
      Promise.all(
        orders.map(async (order, i) => {
          const answer = await send(
            'PATCH',
            order.path,
            {
              authorization: burster,
              'if-match': order.etag,
              'idempotency-key': `"burst-${prefix}-${round}-${i}"`,
            },
            { quantity },
          );
          order.etag = answer.headers.get('etag') ?? order.etag;
          return answer;
        }),
      );
    const read = () => send('GET', '/books/1', { authorization: other });
    // A first burst opens the pool's connections (and the client's sockets), as on a serving instance.
    expect((await burst(0, 2)).map((a) => a.status)).toEqual(Array(BURST).fill(200));
    expect((await read()).status).toBe(200);

    const [answers, reads, readiness] = await Promise.all([
      burst(1, 3),
      Promise.all([read(), read(), read()]),
      send('GET', '/health/ready', {}),
    ]);

    // Each checked on its own, so a failure names every broken promise at once.
    expect.soft(answers.map((a) => a.status)).toEqual(Array(BURST).fill(200));
    expect.soft(readiness.status).toBe(200);
    expect.soft(reads.map((r) => r.status)).toEqual([200, 200, 200]);
    expect.soft(app.logger.entries).toEqual([]);
  }, 60_000);
});

/** The middle of `values` (the lower middle of an even count). */
function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
}

/**
 * The same burst against the app as `npm start` runs it, a process of its own, so what a client sees
 * is timed apart from the client's own work: another user's read, sent while the burst runs, answers
 * within 100 ms of the same read's unloaded time (issue 35 saw 1.9 s against 3 ms, the pool held by
 * writes each waiting for a second connection). Compared as medians of reads taken in turns with the
 * unloaded ones, so a moment of load on a shared machine moves both alike and is no verdict.
 */
describe.runIf(available)(
  'another user’s reads during keyed PATCH bursts, the app in a process of its own',
  () => {
    const prefix = uniquePrefix('burst_reads').toLowerCase();
    /** Unloaded reads then a burst with reads beside it, this many times. */
    const ROUNDS = 7;
    let app: AppProcess | undefined;
    let base: string;

    beforeAll(async () => {
      app = await startReferenceApp({
        DATA_STORE: 'postgres',
        IDEMPOTENCY_STORE: 'postgres',
        STORE_PREFIX: prefix,
        RATE_LIMIT_MAX: '1000000',
      });
      base = app.urls[0]!;
    }, 60_000);
    afterAll(async () => {
      await app?.stop();
      await dropTablesUnder(prefix);
    }, 30_000);

    const send = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
      const started = performance.now();
      const response = await fetch(`${base}${path}`, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      const ms = performance.now() - started;
      // What a refusal says: its status, its error's code and whether it carries Retry-After.
      const code = response.ok ? '' : ` ${JSON.parse(text).errors?.[0]?.code}`;
      const retry = response.headers.has('retry-after') ? ', Retry-After' : '';
      return {
        status: response.status,
        headers: response.headers,
        ms,
        outcome: `${response.status}${code}${retry}`,
      };
    };

    it('answers them within 100 ms of their unloaded time by the median, no PATCH 5xx but a documented 503, readiness 200', async () => {
      const burster = await bearer(`burster-${prefix}`);
      const other = await bearer(`reader-${prefix}`);
      const orders: Array<{ path: string; etag: string }> = [];
      for (let i = 0; i < BURST; i++) {
        const made = await send('POST', '/orders', { authorization: burster }, { bookId: 1, quantity: 1 });
        expect(made.status).toBe(201);
        orders.push({ path: made.headers.get('location')!, etag: made.headers.get('etag')! });
      }
      const burst = (round: number) =>
        Promise.all(
          orders.map(async (order, i) => {
            const answer = await send(
              'PATCH',
              order.path,
              {
                authorization: burster,
                'if-match': order.etag,
                'idempotency-key': `"r-${prefix}-${round}-${i}"`,
              },
              { quantity: 2 + (round % 2) },
            );
            order.etag = answer.headers.get('etag') ?? order.etag;
            return answer.outcome;
          }),
        );
      const read = () => send('GET', '/books/1', { authorization: other });
      const unloaded: number[] = [];
      const loaded: number[] = [];
      const statuses = new Map<string, number>();
      const count = (what: string) => statuses.set(what, (statuses.get(what) ?? 0) + 1);
      // A first burst opens the pool's connections and the client's sockets, as on a serving instance.
      for (const outcome of await burst(0)) count(`patch ${outcome}`);
      for (let round = 1; round <= ROUNDS; round++) {
        for (let i = 0; i < 3; i++) {
          const quiet = await read();
          count(`read ${quiet.status}`);
          unloaded.push(quiet.ms);
        }
        let bursting = true;
        const answers = burst(round).finally(() => {
          bursting = false;
        });
        const readiness = send('GET', '/health/ready', {});
        // Reads one after another for as long as the burst runs (at least one).
        do {
          const busy = await read();
          count(`read ${busy.status}`);
          loaded.push(busy.ms);
        } while (bursting);
        for (const outcome of await answers) count(`patch ${outcome}`);
        count(`ready ${(await readiness).status}`);
      }

      // Each checked on its own, so a failure names every broken promise at once.
      const { 'patch 200': done = 0, ...rest } = Object.fromEntries(statuses);
      // No 5xx but one that is documented: a claim that waited past `storeTimeoutMs` (2 s) for its
      // owner's turn answers 503 with Retry-After, nothing run (docs/idempotency.md, "One connection
      // per keyed write"); seen twice in 210 while the whole suite ran on two busy cores.
      const waited = 'patch 503 idempotency-store-unavailable, Retry-After';
      expect.soft(done).toBeGreaterThan((BURST * (ROUNDS + 1)) / 2);
      expect.soft(rest).toEqual({
        'read 200': 3 * ROUNDS + loaded.length,
        'ready 200': ROUNDS,
        ...(rest[waited] === undefined ? {} : { [waited]: rest[waited] }),
      });
      const times = { unloaded: median(unloaded), loaded: median(loaded) };
      expect
        .soft(times.loaded - times.unloaded, JSON.stringify({ times, unloaded, loaded }))
        .toBeLessThan(100);
    }, 120_000);
  },
);

/**
 * The reference app's keyed writes each need one connection, from claim to completion: on a pool of
 * one, a keyed `PATCH /orders/{id}` (its `If-Match` checked against the order its layer loads), a
 * keyed `DELETE` and a keyed `POST /api/v1/standards` answer, and replay. A layer that loaded through
 * the pool would wait for the connection its own claim holds, and answer 503 after the pool's bound.
 */
describe.runIf(available)('the reference app on PostgreSQL with a pool of one connection', () => {
  const prefix = uniquePrefix('pool_one').toLowerCase();
  let app: ServedReferenceApp;
  beforeAll(async () => {
    app = await servedReferenceApp({
      DATA_STORE: 'postgres',
      IDEMPOTENCY_STORE: 'postgres',
      DATABASE_POOL_SIZE: '1',
      STORE_PREFIX: prefix,
    });
  }, 30_000);
  afterAll(async () => {
    await app?.stop();
    await dropTablesUnder(prefix);
  }, 30_000);

  const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    call(app.url, method, path, headers, body);

  it('answers keyed writes whose layers load what they change, and replays them', async () => {
    const user = await bearer(`one-${prefix}`, 'standards:read standards:write');
    const made = await send('POST', '/orders', { authorization: user }, { bookId: 1, quantity: 1 });
    expect(made.status).toBe(201);
    const order = made.headers.get('location')!;
    const patch = (key: string) =>
      send(
        'PATCH',
        order,
        { authorization: user, 'if-match': made.headers.get('etag')!, 'idempotency-key': key },
        { quantity: 4 },
      );
    const patched = await patch(`"patch-${prefix}"`);
    expect(patched.status).toBe(200);
    const replayed = await patch(`"patch-${prefix}"`);
    expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    const standard = { code: `ONE-${Date.now()}`, name: 'One connection' };
    const keyed = { authorization: user, 'idempotency-key': `"std-${prefix}"` };
    expect((await send('POST', '/api/v1/standards', keyed, standard)).status).toBe(201);
    const again = await send('POST', '/api/v1/standards', keyed, standard);
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    const deleted = await send('DELETE', order, {
      authorization: user,
      'if-match': patched.headers.get('etag')!,
      'idempotency-key': `"delete-${prefix}"`,
    });
    expect(deleted.status).toBe(204);
    expect(app.logger.entries).toEqual([]);
  }, 60_000);
});

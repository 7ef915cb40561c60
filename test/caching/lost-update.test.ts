/**
 * Optimistic concurrency: two clients read the same order and both PATCH it with the ETag they read.
 * Whatever the interleaving of their steps, exactly one write wins and the other gets 412.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { conditional, preconditionFailedError, validateEtag, versionEtag } from '../../src/caching/index.js';
import { readBody } from '../../src/core/body.js';
import { json } from '../../src/core/response.js';
import type { Context } from '../../src/http/types.js';
import { requestView } from '../support/request.js';

interface Order {
  readonly quantity: number;
  readonly version: number;
}

/** A tiny order store whose every read and write is a step the scheduler may reorder. */
class OrderStore {
  order: Order = { quantity: 1, version: 1 };
  writes = 0;
  constructor(
    private readonly step: <T>(value: T, label: string) => Promise<T>,
    /** `false`: a blind `UPDATE` that ignores the version, the mistake the negative case shows. */
    private readonly compareAndSet = true,
  ) {}

  read(): Promise<Order> {
    return this.step({ ...this.order }, 'read');
  }

  /** Atomic compare-and-set on the version, like `UPDATE ... WHERE version = $expected`. */
  async update(expectedVersion: number, quantity: number): Promise<Order | undefined> {
    await this.step(undefined, 'write');
    if (this.compareAndSet && this.order.version !== expectedVersion) return undefined;
    this.writes++;
    this.order = { quantity, version: this.order.version + 1 };
    return this.order;
  }
}

function orderApp(store: OrderStore) {
  const app = createApp({ logger: { error: () => {}, warn: () => {} } });
  const validators = async (_ctx: Context<{ id: string }>) => ({
    etag: versionEtag((await store.read()).version),
  });
  app.route({
    method: 'GET',
    path: '/orders/{id}',
    use: [conditional({ validators })],
    handler: async () => json(200, { data: await store.read() }),
  });
  app.route({
    method: 'PATCH',
    path: '/orders/{id}',
    use: [conditional({ validators, requireIfMatch: true })],
    handler: async (ctx) => {
      const { quantity } = JSON.parse(Buffer.from(await readBody(ctx)).toString()) as { quantity: number };
      // The version If-Match was checked against: the write only happens if it is still current.
      const checked = Number(validateEtag(ctx.var.checkedValidators!.etag!).opaque);
      const written = await store.update(checked, quantity);
      if (written === undefined) throw preconditionFailedError('If-Match');
      return json(200, { data: written }, { etag: versionEtag(written.version) });
    },
  });
  return app;
}

const patch = (etag: string, quantity: number) =>
  requestView('PATCH', '/orders/1', { headers: { 'if-match': etag }, body: JSON.stringify({ quantity }) });

describe('when two clients PATCH the same order with the ETag they both read', () => {
  it('exactly one succeeds and the other gets 412, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 2, max: 99 }),
        fc.integer({ min: 2, max: 99 }),
        async (s, qa, qb) => {
          const store = new OrderStore((value, label) => s.schedule(Promise.resolve(value), label));
          const app = orderApp(store);
          const [readA, readB] = await s.waitFor(
            Promise.all([
              app.handle(requestView('GET', '/orders/1')),
              app.handle(requestView('GET', '/orders/1')),
            ]),
          );
          expect(readA.headers.etag).toBe(readB.headers.etag);

          const [a, b] = await s.waitFor(
            Promise.all([
              app.handle(patch(readA.headers.etag!, qa)),
              app.handle(patch(readB.headers.etag!, qb)),
            ]),
          );
          expect([a.status, b.status].sort()).toEqual([200, 412]);
          const winner = a.status === 200 ? qa : qb;
          expect(store.order).toEqual({ quantity: winner, version: 2 });
          expect(store.writes).toBe(1);
          const loser = a.status === 412 ? a : b;
          expect(loser.json).toMatchObject({ errors: [{ code: 'precondition-failed' }] });
          const success = a.status === 200 ? a : b;
          expect(success.headers.etag).toBe('"2"');
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('when the handler writes without compare-and-set', () => {
  it('the scheduler finds an interleaving where both PATCHes succeed and one update is lost', async () => {
    const outcome = await fc.check(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const store = new OrderStore((value, label) => s.schedule(Promise.resolve(value), label), false);
        const app = orderApp(store);
        const read = await s.waitFor(app.handle(requestView('GET', '/orders/1')));
        const [a, b] = await s.waitFor(
          Promise.all([app.handle(patch(read.headers.etag!, 2)), app.handle(patch(read.headers.etag!, 3))]),
        );
        // The property that holds with compare-and-set: never two winners from one read.
        return !(a.status === 200 && b.status === 200);
      }),
      { numRuns: 200 },
    );
    expect(outcome.failed).toBe(true);
  });
});

describe('when the same PATCH is sent twice', () => {
  it('the second gets 412 and leaves the state as the first left it', async () => {
    const store = new OrderStore((value) => Promise.resolve(value));
    const app = orderApp(store);
    const first = await app.handle(patch('"1"', 5));
    expect(first.status).toBe(200);
    const second = await app.handle(patch('"1"', 5));
    expect(second.status).toBe(412);
    expect(store.order).toEqual({ quantity: 5, version: 2 });
  });
});

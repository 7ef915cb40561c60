import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { created } from '../../src/core/response.js';
import type { ApiResponse } from '../../src/http/types.js';
import {
  type IdempotencyStore,
  idempotency,
  memoryIdempotencyStore,
  REPLAYED_HEADER,
} from '../../src/idempotency/index.js';
import { requestView } from '../support/request.js';
import { bodyOf, orderInput, userFromHeader } from './order-app.js';

/** Bodies and the request they stand for: the same `sameAs` means the same fingerprint. */
const BODIES = [
  { text: '{"bookId":1,"quantity":1}', sameAs: 'one', valid: true },
  { text: '{ "quantity": 1,\n "bookId": 1 }', sameAs: 'one', valid: true },
  { text: '{"bookId":2,"quantity":3}', sameAs: 'two', valid: true },
  { text: '{"bookId":"nope"}', sameAs: 'invalid', valid: false },
] as const;

const requestArb = fc.record({
  user: fc.constantFrom('alice', 'bob', undefined),
  key: fc.constantFrom('k1', 'k2', '"k1"', undefined),
  body: fc.nat({ max: BODIES.length - 1 }),
});

/** `"k1"` (quoted) and `k1` (bare) name the same key. */
const keyName = (key: string) => key.replace(/"/g, '');

describe('when any requests interleave in any order', () => {
  test.prop([fc.scheduler(), fc.array(requestArb, { minLength: 1, maxLength: 10 })], { numRuns: 200 })(
    'creates one order per (principal, key) whose first body was valid plus one per valid keyless request, and replays byte for byte',
    async (s, requests) => {
      const base = memoryIdempotencyStore();
      // Every store call and the order insert resolve when the scheduler says: all interleavings are explored.
      const store: IdempotencyStore = {
        claim: s.scheduleFunction(async (...args: Parameters<typeof base.claim>) => base.claim(...args)),
        renew: s.scheduleFunction(async (...args: Parameters<typeof base.renew>) => base.renew(...args)),
        complete: s.scheduleFunction(async (...args: Parameters<typeof base.complete>) =>
          base.complete(...args),
        ),
        release: s.scheduleFunction(async (...args: Parameters<typeof base.release>) =>
          base.release(...args),
        ),
      };
      const insert = s.scheduleFunction(async (_index: number) => undefined);
      const orders: number[] = [];
      const executed: number[] = [];
      const app = createApp({ use: [userFromHeader], logger: { error: () => {}, warn: () => {} } });
      app.route({
        method: 'POST',
        path: '/orders',
        use: [idempotency({ store })],
        handler: async (ctx) => {
          const index = Number(ctx.request.headers.get('x-index'));
          executed.push(index);
          const input = await orderInput(ctx);
          await insert(index);
          orders.push(index);
          return created(`/orders/${orders.length}`, {
            data: { type: 'orders', id: String(orders.length), attributes: input },
          });
        },
      });

      const pending = requests.map((request, index) =>
        app.handle(
          requestView('POST', '/orders', {
            headers: {
              'content-type': 'application/json',
              'x-index': String(index),
              ...(request.user === undefined ? {} : { 'x-user': request.user }),
              ...(request.key === undefined ? {} : { 'idempotency-key': request.key }),
            },
            body: BODIES[request.body]!.text,
          }),
        ),
      );
      const responses: ApiResponse[] = await s.waitFor(Promise.all(pending));
      const bodies = await Promise.all(responses.map(bodyOf));

      let expectedOrders = 0;
      const pairs = new Map<string, number[]>();
      requests.forEach((request, index) => {
        if (request.key === undefined) {
          expect(executed).toContain(index);
          if (BODIES[request.body]!.valid) expectedOrders++;
          return;
        }
        const pair = `${request.user ?? ''}\u0000${keyName(request.key)}`;
        pairs.set(pair, [...(pairs.get(pair) ?? []), index]);
      });

      for (const members of pairs.values()) {
        const runners = members.filter((index) => executed.includes(index));
        expect(runners).toHaveLength(1);
        const first = runners[0]!;
        const firstBody = BODIES[requests[first]!.body]!;
        if (firstBody.valid) expectedOrders++;
        expect(responses[first]!.headers[REPLAYED_HEADER]).toBeUndefined();
        for (const index of members) {
          if (index === first) continue;
          const response = responses[index]!;
          if (BODIES[requests[index]!.body]!.sameAs !== firstBody.sameAs) {
            expect(response.status).toBe(422);
          } else if (response.status !== 409) {
            expect(response.headers[REPLAYED_HEADER]).toBe('true');
            expect(response.status).toBe(responses[first]!.status);
            expect(bodies[index]!.equals(bodies[first]!)).toBe(true);
          }
        }
      }
      expect(orders).toHaveLength(expectedOrders);
    },
  );
});

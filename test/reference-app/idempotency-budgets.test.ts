import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeClient, type TestClient } from '../support/clients.js';
import { bearer, referenceApp } from '../support/reference-app.js';

/**
 * docs/idempotency.md, "Budgets": one caller cannot push another's record out of the store, so a
 * retry is replayed, never executed twice (two orders).
 */
describe('when one user floods the idempotency store with fresh keys', () => {
  let client: TestClient;
  let alice: string;
  let mallory: string;

  beforeAll(async () => {
    client = await nodeClient(referenceApp().app);
    alice = await bearer('1');
    mallory = await bearer('2');
  });
  afterAll(() => client.close());

  it("still replays the other user's retry, and refuses the flood with 429 and Retry-After", async () => {
    const order = (key: string) =>
      client.request('POST', '/orders', {
        headers: { 'content-type': 'application/json', authorization: alice, 'idempotency-key': key },
        body: JSON.stringify({ bookId: 2, quantity: 1 }),
      });
    const first = await order('alice-k');
    expect(first.status).toBe(201);

    // 10 001 PATCHes of an order that does not exist, each with a fresh key: each 404 is stored.
    const statuses = new Map<number, number>();
    let refusal: Awaited<ReturnType<TestClient['request']>> | undefined;
    const lanes = Array.from({ length: 8 }, async (_, lane) => {
      for (let i = lane; i < 10_001; i += 8) {
        const response = await client.request('PATCH', '/orders/999999', {
          headers: {
            'content-type': 'application/vnd.api+json',
            authorization: mallory,
            'if-match': '*',
            'idempotency-key': `flood-${i}`,
          },
          body: JSON.stringify({ data: { type: 'orders', id: '999999', attributes: { quantity: 2 } } }),
        });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 429) refusal ??= response;
      }
    });
    await Promise.all(lanes);
    const retry = await order('alice-k');
    expect(retry.headers.location).toBe(first.headers.location);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');

    expect(statuses.get(404)).toBeGreaterThan(0);
    expect(statuses.get(429)).toBeGreaterThan(0);
    expect(refusal?.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    expect(refusal?.body.errors[0].code).toBe('idempotency-quota-exceeded');
    expect(refusal?.text).not.toMatch(/stack|at .*\.ts|mallory|sub:/);
    // A bound on a hang only: 10 002 requests took more than 60 s on a loaded machine.
  }, 300_000);
});

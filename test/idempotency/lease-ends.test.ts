/**
 * A lease that was lost, or ran out while its renewals failed, cannot be renewed again (the store
 * fences it). Renewing stops there instead of failing, and logging, for as long as the handler runs:
 * a handler that never returns after its store went away once logged a warning every few seconds
 * for the life of the process.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { idempotency, memoryIdempotencyStore } from '../../src/idempotency/index.js';
import { gate } from '../support/gate.js';
import { until } from '../support/redis-servers.js';
import { requestView } from '../support/request.js';

const LEASE_MS = 60;

describe('lease renewals', () => {
  it('stop for a claim whose renewals failed until its lease ran out, and go on for the others', async () => {
    const clock = { t: 1_700_000_000_000 };
    const memory = memoryIdempotencyStore({ now: () => clock.t });
    const renewals = { failing: 0, healthy: 0 };
    const store = {
      ...memory,
      inProcess: false,
      renew: (key: string) => {
        if (key.includes('failing')) {
          renewals.failing++;
          return Promise.reject(new Error('store away'));
        }
        renewals.healthy++;
        return Promise.resolve(true);
      },
    };
    const warnings: string[] = [];
    const hold = gate();
    const app = createApp({ logger: { error: () => {}, warn: (_f, message) => warnings.push(message) } });
    app.route({
      method: 'POST',
      path: '/orders',
      use: [idempotency({ store, leaseMs: LEASE_MS, now: () => clock.t })],
      handler: async () => {
        await hold.promise;
        return json(201, { data: { type: 'orders', id: '1' } });
      },
    });
    const post = (key: string) =>
      app.handle(
        requestView('POST', '/orders', {
          headers: { 'content-type': 'application/json', 'idempotency-key': key },
          body: '{}',
        }),
      );
    const answers = [post('"failing"'), post('"healthy"')];
    await until('a failed renewal within the lease', 5_000, async () => renewals.failing >= 1);
    // The lease runs out (no renewal succeeded since the claim): the next failure ends renewing.
    clock.t += LEASE_MS;
    const beforeEnd = renewals.failing;
    await until('a failed renewal past the lease', 5_000, async () => renewals.failing > beforeEnd);
    const stoppedAt = beforeEnd + 1;
    const healthyAt = renewals.healthy;
    await until(
      'three more renewals of the healthy claim',
      5_000,
      async () => renewals.healthy >= healthyAt + 3,
    );
    expect(renewals.failing).toBe(stoppedAt);
    expect(warnings.filter((w) => w === 'idempotency: lease renewal failed')).toHaveLength(stoppedAt);
    hold.open();
    await Promise.all(answers);
  });
});

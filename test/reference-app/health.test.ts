import { afterEach, describe, expect, it, vi } from 'vitest';
import { READINESS_TIMEOUT_MS, unreadyStores } from '../../examples/reference-app/health/readiness.js';
import { ADAPTERS } from '../support/clients.js';
import { referenceApp } from '../support/reference-app.js';

const down = (name: string) => ({
  name,
  check: () => Promise.reject(new Error(`connect ECONNREFUSED 10.1.2.3:5432 password=hunter2 (${name})`)),
});
const up = (name: string) => ({ name, check: () => Promise.resolve() });

describe.each(ADAPTERS)('health endpoints through the $adapter adapter', ({ connect }) => {
  it('GET /health/live answers 200 while the process runs, never stored', async () => {
    const client = await connect(referenceApp({}, { readinessChecks: [down('postgres')] }).app);
    const live = await client.request('GET', '/health/live');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ meta: { status: 'pass' } });
    expect(live.headers['cache-control']).toBe('no-store');
    await client.close();
  });

  it('GET /health/ready answers 200 listing the stores when each answers', async () => {
    const client = await connect(referenceApp({}, { readinessChecks: [up('postgres'), up('redis')] }).app);
    const ready = await client.request('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.meta).toEqual({ status: 'pass', stores: { postgres: 'pass', redis: 'pass' } });
    expect(ready.headers['cache-control']).toBe('no-store');
    await client.close();
  });

  it('GET /health/ready answers 503 naming the store that is down, and nothing of why', async () => {
    const client = await connect(referenceApp({}, { readinessChecks: [up('postgres'), down('redis')] }).app);
    const ready = await client.request('GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.errors[0].status).toBe('503');
    expect(ready.headers['cache-control']).toBe('no-store');
    expect(ready.headers['retry-after']).toBe('5');
    expect(ready.body.errors[0].detail).toBe('Not ready: redis did not answer.');
    expect(ready.text).not.toMatch(/ECONNREFUSED|10\.1\.2\.3|hunter2|postgres|stack/);
    await client.close();
  });

  it('is public and not rate limited: probes never use up a quota or need a token', async () => {
    const client = await connect(referenceApp({ RATE_LIMIT_MAX: '2' }).app);
    for (let i = 0; i < 10; i++) {
      const probe = await client.request('GET', i % 2 ? '/health/live' : '/health/ready');
      expect(probe.status).toBe(200);
      expect(probe.headers.ratelimit).toBeUndefined();
    }
    expect((await client.request('GET', '/books')).status).toBe(200);
    await client.close();
  });
});

describe('readiness checks', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it(`counts a store that does not answer within ${READINESS_TIMEOUT_MS} ms as down`, async () => {
    vi.useFakeTimers();
    const hanging = { name: 'postgres', check: () => new Promise<never>(() => {}) };
    const outcome = unreadyStores([hanging, up('redis')]);
    await vi.advanceTimersByTimeAsync(READINESS_TIMEOUT_MS - 1);
    let settled = false;
    void outcome.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toEqual(['postgres']);
  });

  it('names every store that failed, in the order configured, and none when all answer', async () => {
    expect(await unreadyStores([down('postgres'), up('x'), down('redis')])).toEqual(['postgres', 'redis']);
    expect(await unreadyStores([up('postgres'), up('redis')])).toEqual([]);
    expect(await unreadyStores([])).toEqual([]);
  });
});

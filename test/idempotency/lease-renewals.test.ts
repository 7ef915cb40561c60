import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LeaseRenewals, type RunningClaim } from '../../src/idempotency/lease-renewals.js';

const LEASE_MS = 60;

describe('LeaseRenewals', () => {
  let renewed: Array<{ key: string; at: number }>;
  let renewals: LeaseRenewals<RunningClaim>;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    vi.setSystemTime(0);
    renewed = [];
    renewals = new LeaseRenewals(LEASE_MS, (claim) => renewed.push({ key: claim.key, at: Date.now() }));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('renews a claim more than a sixth and at most a third of the lease after it starts, then every third', () => {
    const first = { key: 'a', token: 't', tick: 0 };
    renewals.start(first);
    vi.advanceTimersByTime(LEASE_MS / 6 + 3);
    const second = { key: 'b', token: 't', tick: 0 };
    renewals.start(second); // started just after a tick
    vi.advanceTimersByTime(LEASE_MS - LEASE_MS / 6 - 3);
    for (const [key, started] of [
      ['a', 0],
      ['b', LEASE_MS / 6 + 3],
    ] as const) {
      const times = renewed.filter((r) => r.key === key).map((r) => r.at);
      expect(times.length).toBeGreaterThanOrEqual(2);
      expect(times[0]! - started).toBeGreaterThan(LEASE_MS / 6);
      expect(times[0]! - started).toBeLessThanOrEqual(LEASE_MS / 3);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(LEASE_MS / 3);
    }
  });

  it('never renews a claim stopped before its renewal, and stops its timer once nothing runs', () => {
    const claim = { key: 'a', token: 't', tick: 0 };
    renewals.start(claim);
    vi.advanceTimersByTime(LEASE_MS / 6);
    renewals.stop(claim);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(LEASE_MS);
    expect(renewed).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    // A later claim starts it again.
    renewals.start(claim);
    vi.advanceTimersByTime(LEASE_MS / 3);
    expect(renewed).toHaveLength(1);
  });
});

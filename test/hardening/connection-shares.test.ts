import { execFile } from 'node:child_process';
import type net from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fc, test } from '@fast-check/vitest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADAPTERS, type Served, serve } from '../../examples/reference-app/serve.js';
import {
  admitsConnection,
  type ConnectionShares,
  FEW_CONNECTIONS,
} from '../../src/adapters/connection-shares.js';
import { referenceApp } from '../support/reference-app.js';
import { holdConnection, holdMany } from './held-connections.js';

/**
 * Connection shares no single site can exhaust (issue 41, finding 2): eight addresses of one IPv6
 * /56 (or eight IPv4 addresses) took all 1,024 slots, each holding its eighth. Now IPv6 counts by
 * /56, as the rate limiter counts it, and `reservedConnections` are kept for groups holding fewer
 * than four: groups holding more never hold more than `maxConnections - reservedConnections`
 * together.
 */
const LIMITS = {
  maxConnections: 24,
  maxConnectionsPerAddress: 8,
  reservedConnections: 8,
  // Held connections stay open for the test.
  keepAliveTimeoutMs: 60_000,
  idleTimeoutMs: 60_000,
};

describe('admitsConnection, against a model of which connections took the reserve', () => {
  const shares = fc
    .record({
      maxConnections: fc.integer({ min: 1, max: 40 }),
      share: fc.integer({ min: 1, max: 40 }),
      reserve: fc.integer({ min: 0, max: 40 }),
    })
    .map(
      ({ maxConnections, share, reserve }): ConnectionShares => ({
        maxConnections,
        maxConnectionsPerAddress: Math.min(share, maxConnections),
        reservedConnections: Math.min(reserve, maxConnections - 1),
      }),
    );
  const step = fc.oneof(fc.record({ open: fc.integer({ min: 0, max: 12 }) }), fc.record({ close: fc.nat() }));

  test.prop([shares, fc.array(step, { maxLength: 200 })])(
    'keeps every group within its share, the groups holding many out of the reserve, and a newcomer out only when ⌈reserve / 4⌉ groups hold it',
    (limits, steps) => {
      // Each open connection: its group, and whether it was let in while fewer than
      // maxConnections - reservedConnections were open (outside the reserve) or not.
      const open: { group: number; reserve: boolean }[] = [];
      const heldBy = (group: number) => open.filter((c) => c.group === group).length;
      for (const s of steps) {
        if ('close' in s) {
          if (open.length > 0) open.splice(s.close % open.length, 1);
          continue;
        }
        const before = heldBy(s.open);
        if (admitsConnection(limits, open.length, before)) {
          open.push({
            group: s.open,
            reserve: open.length >= limits.maxConnections - limits.reservedConnections,
          });
        } else if (before === 0) {
          // A newcomer turned away: the reserve is full, held by enough groups.
          const reserveGroups = new Set(open.filter((c) => c.reserve).map((c) => c.group));
          expect(open.length).toBe(limits.maxConnections);
          expect(reserveGroups.size).toBeGreaterThanOrEqual(
            Math.ceil(limits.reservedConnections / FEW_CONNECTIONS),
          );
        }
        expect(open.length).toBeLessThanOrEqual(limits.maxConnections);
        expect(heldBy(s.open)).toBeLessThanOrEqual(limits.maxConnectionsPerAddress);
        expect(open.filter((c) => !c.reserve).length).toBeLessThanOrEqual(
          limits.maxConnections - limits.reservedConnections,
        );
        for (const group of new Set(open.map((c) => c.group))) {
          expect(open.filter((c) => c.group === group && c.reserve).length).toBeLessThanOrEqual(
            FEW_CONNECTIONS,
          );
        }
      }
    },
  );
});

describe.each(ADAPTERS.map((adapter) => ({ adapter })))(
  'connection shares through $adapter (IPv4)',
  ({ adapter }) => {
    let served: Served;
    const sockets: net.Socket[] = [];
    beforeEach(async () => {
      served = await serve(adapter, referenceApp().app, 0, LIMITS);
    });
    afterEach(async () => {
      for (const socket of sockets.splice(0)) socket.destroy();
      await served.close(0);
    });
    const from = (address: string, count: number) =>
      holdMany('127.0.0.1', served.port, address, count, sockets);

    it('leaves a new client a slot when three addresses (the whole server before) take their shares', async () => {
      // Two addresses at their share hold maxConnections - reservedConnections; the third gets four.
      const held = [await from('127.0.0.2', 8), await from('127.0.0.3', 8), await from('127.0.0.4', 8)];
      expect(held).toEqual([8, 8, FEW_CONNECTIONS]);
      expect((await holdConnection('127.0.0.1', served.port, '127.0.0.5')).outcome).toBe('held');
    });

    it('turns a new client away only once ⌈8 / 4⌉ = 2 groups hold the reserve', async () => {
      await from('127.0.0.2', 8);
      await from('127.0.0.3', 8);
      expect(await from('127.0.0.4', FEW_CONNECTIONS)).toBe(FEW_CONNECTIONS);
      expect(await from('127.0.0.5', FEW_CONNECTIONS)).toBe(FEW_CONNECTIONS);
      expect((await holdConnection('127.0.0.1', served.port, '127.0.0.6')).outcome).toBe('refused');
    });
  },
);

/** Whether this machine lets a process make a network namespace of its own (`unshare -rn`). */
async function namespaces(): Promise<boolean> {
  try {
    await promisify(execFile)('unshare', ['-rn', 'true']);
    return true;
  } catch (error) {
    if (process.env.CI === 'true') throw new Error(`unshare -rn failed, and CI=true requires it: ${error}`);
    console.warn('skipping the IPv6 connection-share test: no network namespace (unshare -rn) here');
    return false;
  }
}

describe.runIf(await namespaces())('connection shares over IPv6, in a network namespace of its own', () => {
  it('counts nine /64 networks of one /56 as one site on every adapter; another site still gets in', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/ipv6-connection-shares.ts', import.meta.url));
    // The namespace, its addresses and its loopback go away with the process: nothing to clean up.
    const setup = [
      'ip link set lo up',
      ...Array.from({ length: 9 }, (_, i) => `ip -6 addr add fd00:0:0:${i + 1}::1/128 dev lo nodad`),
      'ip -6 addr add fd00:0:0:100::1/128 dev lo nodad',
      `exec "${process.execPath}" --import tsx "${fixture}"`,
    ].join(' && ');
    const { stdout } = await promisify(execFile)('unshare', ['-rn', 'sh', '-c', setup], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      timeout: 120_000,
    });
    const results = JSON.parse(stdout.trim().split('\n').at(-1)!);
    for (const adapter of ADAPTERS) {
      expect(results[adapter], adapter).toEqual({ oneSite: 8, otherSite: 'held' });
    }
  }, 150_000);
});

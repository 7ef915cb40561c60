import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, type Served, serve } from '../../examples/reference-app/serve.js';
import { connectionGroup } from '../../src/adapters/connection-shares.js';
import type { NodeServerOptions } from '../../src/adapters/node.js';
import { nodeServerLimits } from '../../src/adapters/node.js';
import { referenceApp } from '../support/reference-app.js';

/**
 * The same server limits on every adapter the reference app runs on (issue 27, findings 3, 4, 6),
 * with small values so that every case ends in seconds: headers within 0.5 s, 8 connections in all
 * and 3 from one address. Every client gives up by itself after GIVE_UP_MS, so a server that does
 * not cut it fails the test instead of hanging it. Loopback only.
 */
const LIMITS: NodeServerOptions = {
  headersTimeoutMs: 500,
  requestTimeoutMs: 1000,
  keepAliveTimeoutMs: 500,
  idleTimeoutMs: 1500,
  maxConnections: 8,
  maxConnectionsPerAddress: 3,
};
const GIVE_UP_MS = 6000;

interface Outcome {
  readonly text: string;
  /** Whether the server ended the connection (false: the client gave up at GIVE_UP_MS). */
  readonly cut: boolean;
}

/**
 * A client that sends `first`, then one byte of `drip` every 100 ms, until the server destroys the
 * connection. It never ends its own side (`allowHalfOpen`), as a hostile client need not; once the
 * server has ended its side, it keeps writing, so that it learns (by a reset) when the server
 * destroyed the socket rather than only ended it.
 */
function client(port: number, host: string, first: string, drip = ''): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let cut = true;
    const write = (bytes: string) => () => socket.writable && socket.write(bytes);
    let timer = drip === '' ? undefined : setInterval(write(drip), 100);
    socket.on('end', () => {
      clearInterval(timer);
      timer = setInterval(write(drip === '' ? 'x' : drip), 100);
    });
    const giveUp = setTimeout(() => {
      cut = false;
      socket.destroy();
    }, GIVE_UP_MS);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), cut });
    });
    if (first !== '') socket.write(first);
  });
}

/** A socket that connects and says nothing, resolved once the server has accepted it. */
function silent(port: number, host = '127.0.0.1'): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host, () => resolve(socket));
    socket.on('error', () => {});
  });
}

describe.each(ADAPTERS.map((adapter) => ({ adapter })))('server limits through $adapter', ({ adapter }) => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(adapter, referenceApp().app, 0, LIMITS);
  });
  afterAll(() => served.close(0));

  it('cuts three slow-header clients at once with 408 (finding 3)', async () => {
    const outcomes = await Promise.all(
      [1, 2, 3].map(() => client(served.port, '127.0.0.1', 'GET /books HTTP/1.1\r\nHost: x\r\n', 'a')),
    );
    for (const outcome of outcomes) {
      expect(outcome.cut).toBe(true);
      expect(outcome.text).toMatch(/^HTTP\/1\.1 408 /);
    }
  });

  it('cuts a slow-header client while another connection stays open (finding 3)', async () => {
    const other = await silent(served.port, '::1');
    try {
      const outcome = await client(served.port, '127.0.0.1', 'GET /books HTTP/1.1\r\n', 'X-Slow: a\r\n');
      expect(outcome.cut).toBe(true);
      expect(outcome.text).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      other.destroy();
    }
  });

  it('closes a silent socket (finding 6)', async () => {
    expect((await client(served.port, '127.0.0.1', '')).cut).toBe(true);
  });

  it('gives one address at most its share of the connections; others still get in (finding 4)', async () => {
    const held = [await silent(served.port), await silent(served.port), await silent(served.port)];
    try {
      const fourth = await client(served.port, '127.0.0.1', 'GET /books/1 HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(fourth).toEqual({ text: '', cut: true });
      const elsewhere = await client(
        served.port,
        '::1',
        'GET /books/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      expect(elsewhere.text).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});

describe('address groups and the per-address option', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:0:0:0:0:0/56'],
    ['2001:db8:1:ff:bbbb:cccc:dddd:eeee', '2001:db8:1:0:0:0:0:0/56'],
    ['2001:db8:1:100::1', '2001:db8:1:100:0:0:0:0/56'],
    ['::1', '0:0:0:0:0:0:0:0/56'],
    ['fe80::1%eth0', 'fe80:0:0:0:0:0:0:0/56'],
    [undefined, 'unknown'],
  ])('%s counts as %s (IPv6 by /56, as the rate limiter)', (address, group) => {
    expect(connectionGroup(address, 56)).toBe(group);
  });

  it('defaults to an eighth of maxConnections for a share and for the reserve, and checks both', () => {
    expect(nodeServerLimits({})).toMatchObject({
      maxConnectionsPerAddress: 128,
      reservedConnections: 128,
      ipv6Prefix: 56,
    });
    expect(nodeServerLimits({ maxConnections: 4 }).maxConnectionsPerAddress).toBe(1);
    expect(() => nodeServerLimits({ maxConnections: 4, maxConnectionsPerAddress: 5 })).toThrow(
      /maxConnectionsPerAddress/,
    );
    expect(() => nodeServerLimits({ maxConnectionsPerAddress: 0 })).toThrow(/maxConnectionsPerAddress/);
    expect(nodeServerLimits({ reservedConnections: 0 }).reservedConnections).toBe(0);
    for (const reservedConnections of [-1, 1024, 1.5]) {
      expect(() => nodeServerLimits({ reservedConnections })).toThrow(/reservedConnections/);
    }
    for (const ipv6Prefix of [0, 129, 56.5])
      expect(() => nodeServerLimits({ ipv6Prefix })).toThrow(/ipv6Prefix/);
  });
});

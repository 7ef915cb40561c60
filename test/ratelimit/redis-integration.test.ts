/**
 * End to end against real Redis: concurrent requests over sockets, two app processes sharing one
 * Redis, and a Redis server killed mid-run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../src/adapters/node.js';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import type { Logger } from '../../src/http/types.js';
import { type RateLimitOptions, rateLimit, redisRateLimitStore } from '../../src/ratelimit/index.js';
import { requestView } from '../support/request.js';
import { REDIS_URL, serviceAvailable, uniquePrefix } from '../support/services.js';

const available = await serviceAvailable('Redis');
const prefix = `${uniquePrefix('ratelimit_it')}:`;
const children = new Set<ChildProcess>();
const clients = new Set<Redis>();

afterAll(async () => {
  await Promise.all([...children].map(stop));
  if (available) {
    const cleaner = new Redis(REDIS_URL);
    const keys = await cleaner.keys(`${prefix}*`);
    if (keys.length > 0) await cleaner.del(...keys);
    cleaner.disconnect();
  }
  for (const client of clients) client.disconnect();
});

/** Kill a child we started (by its handle) and wait until it is gone. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return gone;
}

function redisClient(url: string): Redis {
  const client = new Redis(url);
  client.on('error', () => {}); // connection errors surface through commands; no unhandled 'error' events
  clients.add(client);
  return client;
}

function appWith(options: RateLimitOptions, logger?: Logger) {
  const app = createApp({ use: [rateLimit(options)], ...(logger ? { logger } : {}) });
  app.route({ method: 'GET', path: '/books', handler: () => json(200, { data: [] }) });
  return app;
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
  );
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
  );
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolve with the first stdout line matching `pattern`; reject if the process exits first. */
function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = seen.split('\n').find((line) => pattern.test(line));
      if (match !== undefined) resolve(match);
    });
    child.once('exit', (code) =>
      reject(new Error(`process exited (${code}) before printing ${pattern}: ${seen}`)),
    );
    child.once('error', reject);
  });
}

async function statuses(urls: string[]): Promise<number[]> {
  return Promise.all(urls.map(async (url) => (await fetch(url)).status));
}

describe.skipIf(!available)('with real Redis', () => {
  it('100 parallel requests over sockets admit exactly the quota', async () => {
    const app = appWith({
      policies: [{ name: 'burst', quota: 37, windowSeconds: 3600 }],
      store: redisRateLimitStore({ client: redisClient(REDIS_URL), prefix: `${prefix}parallel:` }),
      timeoutMs: 5000,
    });
    const server = http.createServer(toNodeHandler(app));
    const port = await listen(server);
    try {
      const codes = await statuses(Array.from({ length: 100 }, () => `http://127.0.0.1:${port}/books`));
      expect(codes.filter((c) => c === 200)).toHaveLength(37);
      expect(codes.filter((c) => c === 429)).toHaveLength(63);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('two app processes sharing Redis together admit no more than the quota', async () => {
    const script = fileURLToPath(new URL('./fixtures/server.ts', import.meta.url));
    const env = { ...process.env, REDIS_URL, RL_PREFIX: `${prefix}two:`, RL_QUOTA: '25', RL_WINDOW: '3600' };
    const ports = await Promise.all(
      [1, 2].map(async () => {
        // `node --import tsx` runs the TypeScript fixture in one process (the tsx CLI would fork a
        // second one that a kill of the first leaves behind).
        const child = spawn(process.execPath, ['--import', 'tsx', script], {
          env,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        children.add(child);
        const line = await waitForOutput(child, /"port"/);
        return (JSON.parse(line) as { port: number }).port;
      }),
    );
    expect(new Set(ports).size).toBe(2);
    // Concurrent pairs, one request to each process per step: both race for the shared quota at
    // every step, so each process is sure to serve some of it whatever the scheduling.
    const codes: number[] = [];
    for (let step = 0; step < 40; step++) {
      codes.push(...(await statuses(ports.map((port) => `http://127.0.0.1:${port}/books`))));
    }
    expect(codes.filter((c) => c === 200)).toHaveLength(25);
    expect(codes.filter((c) => c === 429)).toHaveLength(55);
    // Both instances did serve requests: the quota really was shared, not split.
    const perInstance = [0, 1].map((n) => codes.filter((c, i) => c === 200 && i % 2 === n).length);
    expect(perInstance.every((n) => n > 0)).toBe(true);
  }, 30_000);

  describe('when the Redis server dies mid-run', () => {
    it.each(['open', 'closed'] as const)(
      'keeps answering within the timeout, by the %s failure policy, and never with 429',
      async (onStoreError) => {
        const port = await freePort();
        const redis = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        children.add(redis);
        await waitForOutput(redis, /Ready to accept connections/);

        const warnings: string[] = [];
        const logger: Logger = { warn: (_fields, message) => warnings.push(message), error: () => {} };
        // Room for a loaded machine, where the first call (connection and script load) took more
        // than 150 ms and so failed open; a dead store's call still ends at this bound.
        const timeoutMs = 2_000;
        const app = appWith(
          {
            policies: [{ name: 'p', quota: 2, windowSeconds: 3600 }],
            store: redisRateLimitStore({ client: redisClient(`redis://127.0.0.1:${port}`), prefix }),
            onStoreError,
            timeoutMs,
          },
          logger,
        );
        const ask = () => app.handle(requestView('GET', '/books'));

        const before = [await ask(), await ask(), await ask()];
        expect(before.map((r) => r.status)).toEqual([200, 200, 429]);
        expect(before[0]!.headers.ratelimit).toBe('"p";r=1;t=1800');

        await stop(redis);

        for (let i = 0; i < 3; i++) {
          // ioredis would queue the command until it reconnects; the store timeout answers long
          // before this generous bound (no timing is measured, a hang simply loses the race).
          let bound: NodeJS.Timeout | undefined;
          const hung = new Promise<'hung'>((resolve) => {
            bound = setTimeout(() => resolve('hung'), 60_000);
          });
          const response = await Promise.race([ask(), hung]);
          clearTimeout(bound);
          if (response === 'hung') throw new Error('the request hung on a dead store');
          expect(response.status).not.toBe(429);
          if (onStoreError === 'open') {
            expect(response.status).toBe(200);
            expect(response.headers.ratelimit).toBeUndefined();
          } else {
            expect(response.status).toBe(503);
            expect(response.headers['retry-after']).toMatch(/^\d+$/);
          }
        }
        // One warning for the outage, not one per request, whichever the policy.
        expect(warnings).toEqual([expect.stringMatching(/^rate-limit store unavailable/)]);
      },
    );
  });
});

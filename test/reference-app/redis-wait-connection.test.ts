/**
 * With `REDIS_WAIT_REPLICAS` > 0 an idempotency completion sends `WAIT`, which holds its connection
 * until a replica answers or the wait ends (docs/deployment.md, "Redis Cluster"). The rate-limit
 * store must not queue behind it: it has a connection of its own, counted in readiness and closed
 * at shutdown with the other (docs/deployment.md, "The environment of each instance").
 *
 * The Redis here is a master and one replica on loopback (test/support/redis-replicated.ts), the
 * replica behind a slow link (every byte 300 ms late, either way): it stays online and acknowledges
 * every second, so the master counts it and every completion waits, but no acknowledgement comes
 * within 100 ms: each `WAIT` lasts its whole 100 ms.
 */
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplicatedRedis, startReplicatedRedis } from '../support/redis-replicated.js';
import { redisServerInstalled, until } from '../support/redis-servers.js';
import { bearer, servedReferenceApp } from '../support/reference-app.js';
import { uniquePrefix } from '../support/services.js';

const run = promisify(execFile);

const available = redisServerInstalled();
let redis: ReplicatedRedis;

beforeAll(async () => {
  if (!available) return;
  redis = await startReplicatedRedis({ linkDelayMs: 300 });
}, 30_000);
afterAll(async () => {
  await redis?.stop();
});

/** `CLIENT LIST` of the master: name and last command of each connection named under `prefix`. */
async function connections(prefix: string): Promise<Array<{ name: string; cmd: string }>> {
  const { port } = new URL(redis.url);
  const lines = (
    await run('redis-cli', ['-h', '127.0.0.1', '-p', port, 'client', 'list'], { timeout: 10_000 })
  ).stdout
    .trim()
    .split('\n');
  return lines
    .map((line) => ({ name: /\bname=(\S*)/.exec(line)![1]!, cmd: /\bcmd=(\S*)/.exec(line)![1]! }))
    .filter((c) => c.name.startsWith(prefix));
}

describe.skipIf(!available)('REDIS_WAIT_REPLICAS=1 on a Redis whose replica never acknowledges', () => {
  it('decides rate limits on a connection of its own, fast, while completions wait', async () => {
    const prefix = uniquePrefix('wait').toLowerCase();
    const app = await servedReferenceApp({
      REDIS_URL: redis.url,
      IDEMPOTENCY_STORE: 'redis',
      RATE_LIMIT_STORE: 'redis',
      REDIS_WAIT_REPLICAS: '1',
      RATE_LIMIT_MAX: '1000000',
      // 2 s, not the default 200 ms: a loaded machine can delay a decision on a connection of its
      // own past 200 ms, but not past 2 s, while one queued behind the 40 WAITs waits up to 4 s.
      RATE_LIMIT_TIMEOUT_MS: '2000',
      // And the idempotency bound raised from 2 s: a claim queued behind the WAITs before it waits
      // up to 4 s on this connection, which is what this test makes happen, not a fault.
      IDEMPOTENCY_STORE_TIMEOUT_MS: '30000',
      STORE_PREFIX: prefix,
    });
    const { url, logger } = app;
    try {
      const token = await bearer('1');
      const timed = async (call: () => Promise<Response>) => {
        const started = performance.now();
        const response = await call();
        await response.arrayBuffer();
        return { response, ms: performance.now() - started };
      };
      // Warm: the first request compiles what later ones reuse.
      await (await fetch(`${url}/books`, { headers: { authorization: token } })).arrayBuffer();
      // 40 keyed writes at once: each completion's WAIT holds the idempotency connection 100 ms,
      // one after the other.
      const writes = Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          timed(() =>
            fetch(`${url}/orders`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                authorization: token,
                'idempotency-key': `"w${i}"`,
              },
              body: JSON.stringify({ bookId: 2, quantity: 1 }),
            }),
          ),
        ),
      );
      // Meanwhile, reads: each is a rate-limit decision.
      const ratelimits: Array<string | null> = [];
      let writing = true;
      void writes.finally(() => {
        writing = false;
      });
      await sleep(20);
      while (writing) {
        const response = await fetch(`${url}/books`, { headers: { authorization: token } });
        await response.arrayBuffer();
        expect(response.status).toBe(200);
        ratelimits.push(response.headers.get('ratelimit'));
        await sleep(10);
      }
      const written = await writes;
      for (const { response } of written) expect(response.status).toBe(201);
      // The completions waited: the last of them answered after most of 40 × 100 ms.
      expect(Math.max(...written.map((w) => w.ms))).toBeGreaterThan(2_000);
      // Every read was decided: RateLimit fields, so its store call answered within the limiter's
      // 2 s bound (behind the WAITs it would wait 100 ms for each one queued before it, and fail
      // open). Their times are not asserted: a loaded machine stretches them, not the queue.
      expect(ratelimits.length).toBeGreaterThan(5);
      for (const ratelimit of ratelimits) expect(ratelimit).not.toBeNull();
      expect(logger.entries.filter((e) => e.message.startsWith('rate-limit store'))).toEqual([]);

      // Two connections, one per store; readiness asks both.
      expect((await connections(prefix)).map((c) => c.name).sort()).toEqual([
        `${prefix}:idempotency`,
        `${prefix}:rate-limit`,
      ]);
      // A completion past the store's 2 s bound answers its client while its WAIT still holds the
      // idempotency connection; a PING queued behind such WAITs misses readiness's 1 s, so the
      // instance is ready once they have drained (each lasts 100 ms, up to a Redis cron tick more).
      await until('readiness once the queued WAITs have drained', 40 * 200, async () => {
        const ready = await fetch(`${url}/health/ready`);
        await ready.arrayBuffer();
        return ready.status === 200;
      });
      expect((await connections(prefix)).map((c) => c.cmd)).toEqual(['ping', 'ping']);
    } finally {
      await app.stop();
    }
    // Both closed at shutdown.
    expect(await connections(prefix)).toEqual([]);
  }, 30_000);
});

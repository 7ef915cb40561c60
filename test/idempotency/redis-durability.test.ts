/**
 * `redisIdempotencyStore({ replicas: 1 })` against a real master and replica that this file starts
 * from `redis-server` (test/support/redis-replicated.ts), through every client the store takes:
 * a completion counts once the replica has the record (`WAIT`, in one pipeline with its script on
 * one connection); one the replica does not acknowledge in time rejects with NotReplicatedError;
 * and when the master has fewer replicas online than asked (or one stopped acknowledging longer ago
 * than `replicaMaxLagSeconds`), no `WAIT` is sent at all, so nothing queued behind it on the
 * connection waits out its timeout.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  idempotency,
  NotReplicatedError,
  type RedisIdempotencyStoreOptions,
  redisIdempotencyStore,
} from '../../src/idempotency/index.js';
import { REDIS_CLIENTS, type RedisClientName } from '../support/redis-clients.js';
import { type MonitoredCommand, monitored } from '../support/redis-monitor.js';
import { type ReplicatedRedis, startReplicatedRedis } from '../support/redis-replicated.js';
import { redisServerInstalled, until } from '../support/redis-servers.js';
import { memoryLogger } from '../support/reference-app.js';
import { requestView } from '../support/request.js';
import { bodyOf, orderApp } from './order-app.js';

const available = redisServerInstalled();
const clientNames = Object.keys(REDIS_CLIENTS) as RedisClientName[];
const response = { status: 201, headers: { etag: '"1"' }, body: new Uint8Array([1, 2, 3]) };

let pair: ReplicatedRedis;
let admin: Redis;
beforeAll(async () => {
  if (!available) return;
  pair = await startReplicatedRedis();
  admin = new Redis(pair.url);
}, 60_000);
afterAll(async () => {
  admin?.disconnect();
  await pair?.stop();
});

/** Four claims of `owner` through `store`, their keys and tokens. */
async function claimFour(store: ReturnType<typeof redisIdempotencyStore>, owner: string) {
  const tokens: [string, string][] = [];
  for (const key of ['a', 'b', 'c', 'd']) {
    const claimed = await store.claim(key, 'fp', 60_000, owner);
    if (claimed.kind !== 'claimed') throw new Error(`not claimed: ${claimed.kind}`);
    tokens.push([key, claimed.token]);
  }
  return tokens;
}

/** On each connection, the commands it sent (scripts' own commands left out), in order. */
function byConnection(seen: readonly MonitoredCommand[]): string[][] {
  const bySource = new Map<string, string[]>();
  for (const { args, source } of seen) {
    if (source === 'lua') continue;
    bySource.set(source, [...(bySource.get(source) ?? []), args[0]!.toLowerCase()]);
  }
  return [...bySource.values()];
}

/** The store's durability options a test sets. */
type Durability = Pick<RedisIdempotencyStoreOptions, 'replicationTimeoutMs' | 'replicaMaxLagSeconds'>;

/** The WAITs among `seen`. */
const waitsIn = (seen: readonly MonitoredCommand[]) =>
  seen.filter(({ args }) => args[0]!.toLowerCase() === 'wait');

/**
 * Runs `body` with a `replicas: 1` store of `name`'s client on the pair's master, its keys under a
 * prefix of their own (`label`), and MONITOR on that prefix and on every WAIT; closes both after.
 */
async function withStore(
  name: RedisClientName,
  label: string,
  durability: Durability,
  body: (
    store: ReturnType<typeof redisIdempotencyStore>,
    monitor: Awaited<ReturnType<typeof monitored>>,
  ) => Promise<void>,
): Promise<void> {
  const prefix = `${label}-${name.replace(/\W+/g, '-')}:`;
  const connected = await REDIS_CLIENTS[name](pair.url);
  const monitor = await monitored(admin, prefix, { waits: true });
  try {
    await body(
      redisIdempotencyStore({ client: connected.client, prefix, replicas: 1, ...durability }),
      monitor,
    );
  } finally {
    monitor.stop();
    await connected.close();
  }
}

describe.skipIf(!available)('the Redis store with replicas: 1, on a master with one replica', () => {
  it.each(clientNames)(
    'resolves each completion once the replica has it, its WAIT right after its script on one connection (%s)',
    // Generous: WAIT answers as soon as the replica acknowledges, which a loaded machine delays.
    (name) =>
      withStore(name, 'online', { replicationTimeoutMs: 5_000 }, async (store, { seen, settle }) => {
        // Once first, so Redis has the scripts: an EVALSHA it answers NOSCRIPT is sent again as EVAL,
        // each with its WAIT.
        const warm = await store.claim('warm', 'fp', 60_000, 'sub:w');
        if (warm.kind !== 'claimed') throw new Error('not claimed');
        await store.complete('warm', warm.token, response, 60_000);
        const tokens = await claimFour(store, 'sub:w');
        await settle();
        seen.splice(0);
        // At once, so a client with more than one connection spreads them over its connections.
        const outcomes = await Promise.all(tokens.map(([k, t]) => store.complete(k, t, response, 60_000)));
        expect(outcomes).toEqual([true, true, true, true]);
        await settle();
        // WAIT counts the writes of its own connection only: on another it would vouch for nothing.
        let waits = 0;
        for (const commands of byConnection(seen)) {
          commands.forEach((command, i) => {
            if (command !== 'wait') return;
            waits++;
            expect(commands[i - 1]).toMatch(/^eval/);
          });
        }
        expect(waits).toBe(4);
      }),
  );

  it.each(clientNames)(
    'rejects a completion the replica does not acknowledge in time with NotReplicatedError, the record completed on the master (%s)',
    (name) =>
      withStore(name, 'paused', { replicationTimeoutMs: 20 }, async (store) => {
        const [key, token] = (await claimFour(store, 'sub:p'))[0]!;
        // The master still counts the stopped replica online: the claim saw it, the WAIT times out.
        await pair.pauseReplica();
        try {
          const outcome = await Promise.resolve(store.complete(key, token, response, 60_000)).catch(
            (e: unknown) => e,
          );
          expect(outcome).toBeInstanceOf(NotReplicatedError);
          expect(outcome).toMatchObject({ acknowledged: 0, required: 1 });
          expect(String(outcome)).toMatch(/0 of 1 replicas acknowledged it within 20 ms/);
        } finally {
          await pair.resumeReplica();
        }
        expect((await store.claim(key, 'fp', 60_000, 'sub:p')).kind).toBe('completed');
      }),
  );

  /**
   * Four completions in `label`'s store, each claimed while the master had no replica it could wait
   * for: none sends a WAIT (which would hold the connection 10 s each), each rejects at once, and each
   * record is completed on the master.
   */
  const notWaitedFor = (name: RedisClientName, label: string, durability: Durability = {}) =>
    withStore(
      name,
      label,
      { replicationTimeoutMs: 10_000, ...durability },
      async (store, { seen, settle }) => {
        const tokens = await claimFour(store, 'sub:a');
        const started = Date.now();
        const outcomes = await Promise.allSettled(
          tokens.map(([k, t]) => store.complete(k, t, response, 60_000)),
        );
        expect(Date.now() - started).toBeLessThan(5_000);
        for (const outcome of outcomes) {
          expect(outcome.status).toBe('rejected');
          const reason = (outcome as PromiseRejectedResult).reason as NotReplicatedError;
          expect(reason).toBeInstanceOf(NotReplicatedError);
          expect(reason.message).toMatch(
            /had 0 of 1 replicas online and acknowledging at the claim: not waited for/,
          );
        }
        await settle();
        expect(waitsIn(seen)).toEqual([]);
        for (const [k] of tokens)
          expect((await store.claim(k, 'fp', 60_000, 'sub:a')).kind).toBe('completed');
      },
    );

  describe('once the replica has acknowledged nothing for 3 s or more, though the master counts it online', () => {
    // A hung replica, or one cut off by a partition, stays `state=online` until `repl-timeout` (60 s).
    // A healthy one acknowledges every second, but on a loaded machine a second or two late.
    /** Pauses the replica afresh, and resolves once it has been silent for 3 s, still online. */
    const silentReplica = async () => {
      await pair.resumeReplica();
      await pair.pauseReplica();
      await until(
        'the paused replica silent for 3 s, still online',
        20_000,
        async () => ((await pair.replicaLag()) ?? 0) >= 3,
      );
    };
    afterAll(async () => {
      if (available) await pair.resumeReplica();
    }, 30_000);

    it.each(clientNames)(
      'still waits for it within the default replicaMaxLagSeconds (10): the WAIT times out, the completion rejects (%s)',
      (name) =>
        withStore(name, 'late', { replicationTimeoutMs: 20 }, async (store, { seen, settle }) => {
          // The claim must read a lag of 3 to 9 s. Each test pauses the replica afresh: the lag grows
          // by a second a second, and on a loaded machine the claims may come after the tenth; then
          // they are made again after a fresh pause (at most five times).
          let claimed: [string, string] | undefined;
          for (let attempt = 0; claimed === undefined && attempt < 5; attempt++) {
            await silentReplica();
            const [key, token] = (await claimFour(store, `sub:l${attempt}`))[0]!;
            if ((await pair.replicaLag())! < 10) claimed = [key, token];
          }
          expect(claimed, 'a claim made while the replica was silent for 3 to 9 s').toBeDefined();
          await settle();
          seen.splice(0);
          const [key, token] = claimed!;
          const outcome = await Promise.resolve(store.complete(key, token, response, 60_000)).catch(
            (e: unknown) => e,
          );
          expect(outcome).toBeInstanceOf(NotReplicatedError);
          expect(String(outcome)).toMatch(/0 of 1 replicas acknowledged it within 20 ms/);
          await settle();
          expect(waitsIn(seen)).toHaveLength(1);
        }),
      90_000,
    );

    it.each(clientNames)(
      'with replicaMaxLagSeconds: 2, sends no WAIT: each completion rejects at once with NotReplicatedError, and replays (%s)',
      async (name) => {
        await silentReplica();
        await notWaitedFor(name, 'hung', { replicaMaxLagSeconds: 2 });
      },
      60_000,
    );
  });

  describe('once the master has no replica online', () => {
    beforeAll(async () => {
      if (available) await pair.killReplica();
    }, 30_000);

    it.each(clientNames)(
      'sends no WAIT: each completion rejects at once with NotReplicatedError, and replays (%s)',
      (name) => notWaitedFor(name, 'alone'),
    );

    it('through the middleware: answers 201, logs a warning naming the request and the replicas, and replays the retry', async () => {
      const connected = await REDIS_CLIENTS.ioredis(pair.url);
      try {
        const logger = memoryLogger();
        const store = redisIdempotencyStore({ client: connected.client, prefix: 'app:', replicas: 1 });
        const { app, runs } = orderApp({ idempotency: idempotency({ store }), logger });
        const post = () =>
          app.handle(
            requestView('POST', '/orders', {
              headers: { 'content-type': 'application/json', 'idempotency-key': '"k"', 'x-user': 'u' },
              body: '{"bookId":1,"quantity":1}',
            }),
          );
        const first = await post();
        expect(first.status).toBe(201);
        expect(logger.entries).toEqual([
          {
            level: 'warn',
            message:
              'idempotency: response stored, on fewer replicas than required: a failover before they have it could run a retry again',
            fields: { requestId: expect.any(String), acknowledged: 0, required: 1 },
          },
        ]);
        const retry = await post();
        expect(retry.status).toBe(201);
        expect(retry.headers['idempotent-replayed']).toBe('true');
        expect(await bodyOf(retry)).toEqual(await bodyOf(first));
        expect(runs.count).toBe(1);
      } finally {
        await connected.close();
      }
    });
  });
});

/**
 * The reference app on a real Redis Cluster (3 masters, 3 replicas, started here from `redis-server`
 * on loopback ports by test/support/redis-cluster.ts and stopped in `afterAll`) while a master is
 * down: what `GET /health/ready` says (docs/deployment.md, "Health and readiness"), what clients
 * see and what is kept (docs/deployment.md, "When PostgreSQL or Redis goes away"), and what the
 * rate limiter logs (docs/ratelimit.md, "When the store fails").
 *
 * The helper's nodes have a 1 s `cluster-node-timeout`: a killed master's replica takes over about
 * a second or two later. To look at the cluster while the master is down and not yet replaced, a
 * test raises the timeout on the live nodes first (`CONFIG SET`), and lowers it again to let the
 * failover happen.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import keySlot from 'cluster-key-slot';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { READINESS_TIMEOUT_MS } from '../../examples/reference-app/health/readiness.js';
import { STORE_RECOVERY_MS } from '../../src/ratelimit/middleware.js';
import { type RedisCluster, startRedisCluster } from '../support/redis-cluster.js';
import { redisServerInstalled, until } from '../support/redis-servers.js';
import { bearer, type ServedReferenceApp, servedReferenceApp } from '../support/reference-app.js';

const available = redisServerInstalled();
/** Room for a loaded machine on top of a bound; a hang would take far longer. */
const SLACK_MS = 1_000;

let cluster: RedisCluster;
const killed = new Set<number>();
const live = () => cluster.ports.filter((port) => !killed.has(port));

/** `cluster-node-timeout` of every live node: how long a master may be silent before its replica replaces it. */
async function nodeTimeout(ms: number): Promise<void> {
  await Promise.all(
    live().map((port) => cluster.cli(port, 'config', 'set', 'cluster-node-timeout', String(ms))),
  );
}

async function kill(port: number): Promise<void> {
  killed.add(port);
  await cluster.kill(port);
}

/** Until every live node reports `state` (`ok` or `fail`), bounded. */
const clusterState = (state: 'ok' | 'fail', timeoutMs: number) =>
  until(`every node reporting cluster_state:${state}`, timeoutMs, async () =>
    (await Promise.all(live().map((port) => cluster.cli(port, 'cluster', 'info')))).every((info) =>
      info.includes(`cluster_state:${state}`),
    ),
  );

let instance: ServedReferenceApp;

const startInstance = () =>
  servedReferenceApp({
    REDIS_CLUSTER_NODES: cluster.nodesSetting,
    IDEMPOTENCY_STORE: 'redis',
    RATE_LIMIT_STORE: 'redis',
    STORE_PREFIX: 'outage',
  });

/** `GET /health/ready`: its status and how long it took. */
async function probe(): Promise<{ status: number; ms: number; detail?: string }> {
  const started = performance.now();
  const response = await fetch(`${instance.url}/health/ready`);
  const body = (await response.json()) as { errors?: [{ detail: string }] };
  return { status: response.status, ms: performance.now() - started, detail: body.errors?.[0].detail };
}

/** 30 probes, 20 ms apart. */
async function probes30() {
  const probes = [];
  for (let i = 0; i < 30; i++) {
    probes.push(await probe());
    await sleep(20);
  }
  return probes;
}

/** The process id of the node on `port`. */
async function pidOf(port: number): Promise<number> {
  return Number(/process_id:(\d+)/.exec(await cluster.cli(port, 'info', 'server'))![1]);
}

beforeAll(async () => {
  if (!available) return;
  cluster = await startRedisCluster();
  instance = await startInstance();
}, 120_000);
/**
 * The cluster whole again for the next test, whatever the last one left (an assertion that failed
 * before its own clean-up included): the 1 s timeout everywhere, the dead master's replica
 * promoted, the dead node back as a replica. A test that killed more than one node is the last.
 */
afterEach(async () => {
  if (!available || live().length === 0) return;
  await nodeTimeout(1_000);
  if (killed.size !== 1) return;
  await cluster.healthy(30_000);
  for (const port of killed) await cluster.restart(port);
  killed.clear();
  await cluster.healthy(30_000);
}, 70_000);
afterAll(async () => {
  await instance?.stop();
  await cluster?.stop();
});

describe.skipIf(!available)('readiness of an instance on a Redis Cluster', () => {
  it('stays ready while one master is down, and through its replica taking over', async () => {
    expect((await probe()).status).toBe(200);
    const victim = (await cluster.masters())[0]!.port;
    await nodeTimeout(60_000);
    // First it stops answering (a hung process, a host gone from the network: connections stay
    // open, nothing comes back), then it is gone (connections refused). Meanwhile its replica is not
    // promoted: the other masters' owners are served, and every instance sees the same. Each probe
    // answers 200, within its bound.
    process.kill(await pidOf(victim), 'SIGSTOP');
    const probes = await probes30();
    await kill(victim);
    probes.push(...(await probes30()));
    expect(probes.map((p) => p.status)).toEqual(probes.map(() => 200));
    for (const { ms } of probes) expect(ms).toBeLessThan(READINESS_TIMEOUT_MS + SLACK_MS);

    await nodeTimeout(1_000);
    await cluster.healthy(30_000);
    expect((await cluster.masters()).map((m) => m.port)).not.toContain(victim);
    expect((await probe()).status).toBe(200);
    // Back to 3 masters and 3 replicas for the next test: the old master rejoins as a replica.
    await cluster.restart(victim);
    killed.delete(victim);
    await cluster.healthy(30_000);
  }, 90_000);
});

/** The port of the master serving `key`'s slot. */
async function masterOf(key: string): Promise<number> {
  const slot = keySlot(key);
  const masters = await cluster.masters();
  return masters.find((m) => m.slots.some(([from, to]) => slot >= from && slot <= to))!.port;
}

/** A user whose `key(user)` is on `master` (or, with `not`, on another master). */
async function userWhere(key: (user: string) => string, master: number, not = false): Promise<string> {
  for (let i = 1000; i < 1200; i++) {
    if (((await masterOf(key(String(i)))) === master) !== not) return String(i);
  }
  throw new Error(`no user found for master ${master}`);
}

/**
 * Whether the instance logged that this request's record was stored on fewer replicas than
 * required (docs/idempotency.md, "Durability").
 */
function notReplicated(requestId: string | null): boolean {
  return instance.logger.entries.some(
    (e) =>
      e.message.startsWith('idempotency: response stored, on fewer replicas') &&
      e.fields.requestId === requestId,
  );
}

/** One caller of the app (`on` an instance): keyed orders and a rate-limited read. */
async function caller(user: string, on: ServedReferenceApp = instance) {
  const authorization = await bearer(user);
  return {
    order: async (key: string) => {
      const response = await fetch(`${on.url}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization, 'idempotency-key': `"${key}"` },
        body: JSON.stringify({ bookId: 2, quantity: 1 }),
      });
      const text = await response.text();
      const { status, headers } = response;
      return {
        status,
        retryAfter: headers.get('retry-after'),
        replayed: headers.get('idempotent-replayed'),
        requestId: headers.get('x-request-id'),
        text,
      };
    },
    read: async () => {
      const response = await fetch(`${on.url}/books`, { headers: { authorization } });
      await response.arrayBuffer();
      return { status: response.status, ratelimit: response.headers.get('ratelimit') };
    },
  };
}

describe.skipIf(!available)('an instance on a Redis Cluster that loses a master', () => {
  it("refuses only that master's owners' keyed writes (503, Retry-After: 5) and lets its clients through unlimited, until the replica takes over", async () => {
    const victim = (await cluster.masters())[0]!.port;
    // Idempotency records are kept per owner (`{sub:<user>}`), rate-limit state per client
    // (`{user:<user>}`): docs/idempotency.md and docs/ratelimit.md, "Stores".
    const onVictim = await caller(await userWhere((u) => `{sub:${u}}`, victim));
    const elsewhere = await caller(await userWhere((u) => `{sub:${u}}`, victim, true));
    const limitedOnVictim = await caller(await userWhere((u) => `{user:${u}}`, victim));
    const limitedElsewhere = await caller(await userWhere((u) => `{user:${u}}`, victim, true));
    // A record the replica acknowledged (REDIS_WAIT_REPLICAS=1 by default on a cluster): one whose
    // WAIT a loaded machine let time out is stored on the master only, and a failover may lose it,
    // as docs/deployment.md says; the instance logs which. Bounded: 10 keys.
    let beforeKey = 'before-0';
    let before = await onVictim.order(beforeKey);
    for (let i = 1; i < 10 && (before.status !== 201 || notReplicated(before.requestId)); i++) {
      beforeKey = `before-${i}`;
      before = await onVictim.order(beforeKey);
    }
    expect(before.status).toBe(201);
    expect(notReplicated(before.requestId)).toBe(false);

    await nodeTimeout(60_000);
    await kill(victim);
    // Each refusal and each unlimited read comes at its store bound (2 s for the idempotency store,
    // 200 ms for the limiter): the client retries the dead master's connection meanwhile.
    for (let i = 0; i < 4; i++) {
      const refused = await onVictim.order(`during-${i}`);
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toBe('5');
      expect((await elsewhere.order(`during-${i}`)).status).toBe(201);
      // The limiter fails open for the clients on the dead master: no RateLimit fields.
      expect(await limitedOnVictim.read()).toEqual({ status: 200, ratelimit: null });
      expect((await limitedElsewhere.read()).ratelimit).not.toBeNull();
      expect((await probe()).status).toBe(200);
    }
    // The helper's 1 s cluster-node-timeout: the replica takes over within seconds, and the
    // owner's writes run again. The record written before the crash is kept and replayed.
    await nodeTimeout(1_000);
    const until = Date.now() + 20_000;
    let after = await onVictim.order('after');
    while (after.status === 503 && Date.now() < until) {
      await sleep(100);
      after = await onVictim.order('after');
    }
    expect(after.status).toBe(201);
    const again = await onVictim.order(beforeKey);
    expect([again.status, again.replayed, again.text]).toEqual([201, 'true', before.text]);

    // What docs/deployment.md's table says of it.
    const deployment = readFileSync(new URL('../../docs/deployment.md', import.meta.url), 'utf8');
    const row = deployment.split('\n').find((line) => line.startsWith('| one master of a Redis Cluster'));
    expect(row).toContain('503 with `Retry-After: 5`');
    expect(row).toContain('pass the rate limiter unlimited');
    expect(row).toContain('replay after the failover');

    await cluster.healthy(30_000);
    await cluster.restart(victim);
    killed.delete(victim);
    await cluster.healthy(30_000);
  }, 90_000);
});

describe.skipIf(!available)('the rate limiter of an instance on a Redis Cluster that loses a master', () => {
  it('logs the outage once while its calls alternate between the dead master and live ones, and its end once', async () => {
    // An instance of its own: a limiter that has seen no failure yet, and its own log.
    const own = await startInstance();
    const warnings = () =>
      own.logger.entries
        .filter((e) => e.message.startsWith('rate-limit store'))
        .map((e) => e.message.split(';')[0]);
    try {
      const victim = (await cluster.masters())[0]!.port;
      const users = [
        await userWhere((u) => `{user:${u}}`, victim),
        await userWhere((u) => `{user:${u}}`, victim, true),
      ];
      const callers = await Promise.all(users.map((user) => caller(user, own)));
      await nodeTimeout(60_000);
      await kill(victim);
      // Reads of a client on the dead master and of one on a live master, in turn: the first are
      // let through unlimited (after the limiter's 200 ms bound), the second decided (a machine
      // too loaded to answer within 200 ms may let one through too, so they are counted).
      const decided: boolean[][] = [[], []];
      for (let round = 0; round < 8; round++) {
        for (const [i, c] of callers.entries()) decided[i]!.push((await c.read()).ratelimit !== null);
      }
      expect(decided[0]).toEqual(decided[0]!.map(() => false));
      expect(decided[1]!.filter(Boolean).length).toBeGreaterThanOrEqual(4);
      expect(warnings()).toEqual(['rate-limit store unavailable']);

      // The replica takes over; once the store has answered for STORE_RECOVERY_MS without a failure,
      // one line says so.
      await nodeTimeout(1_000);
      await cluster.healthy(30_000);
      await cluster.restart(victim);
      killed.delete(victim);
      await cluster.healthy(30_000);
      const until = Date.now() + STORE_RECOVERY_MS + 10_000;
      while (warnings().length < 2 && Date.now() < until) {
        for (const c of callers) await c.read();
        await sleep(250);
      }
      expect(warnings()).toEqual(['rate-limit store unavailable', 'rate-limit store answers again']);
    } finally {
      await own.stop();
    }
  }, 90_000);
});

// Last: it leaves no cluster behind.
describe.skipIf(!available)('readiness of an instance on a Redis Cluster that cannot serve', () => {
  it('is unready while the cluster reports cluster_state:fail, and when no node answers', async () => {
    // A master and its replica gone: their slots have no one to serve them.
    const nodes = (await cluster.cli(live()[0]!, 'cluster', 'nodes')).trim().split('\n');
    const ids = new Map(nodes.map((line) => [line.split(' ')[0]!, Number(/:(\d+)@/.exec(line)![1])]));
    const master = nodes.find((line) => line.split(' ')[2]!.split(',').includes('master'))!;
    const masterId = master.split(' ')[0]!;
    const replica = nodes.find((line) => line.split(' ')[3] === masterId)!;
    await kill(ids.get(masterId)!);
    await kill(ids.get(replica.split(' ')[0]!)!);
    await clusterState('fail', 30_000);
    for (let i = 0; i < 5; i++) {
      const { status, ms, detail } = await probe();
      expect(status).toBe(503);
      expect(detail).toBe('Not ready: redis did not answer.');
      expect(ms).toBeLessThan(READINESS_TIMEOUT_MS + SLACK_MS);
    }
    for (const port of live()) await kill(port);
    const { status, ms } = await probe();
    expect(status).toBe(503);
    expect(ms).toBeLessThan(READINESS_TIMEOUT_MS + SLACK_MS);
  }, 60_000);
});

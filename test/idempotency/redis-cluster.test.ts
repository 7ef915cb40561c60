/**
 * The Redis stores on a real Redis Cluster (3 masters, 3 replicas) that this file starts from
 * `redis-server` on loopback ports and stops in `afterAll`: the store contract, records spread over
 * the masters, two instances of the reference app (`REDIS_CLUSTER_NODES`) sharing keyed writes and
 * rate limits, and a master killed mid-run.
 */
import keySlot from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisIdempotencyStore } from '../../src/idempotency/index.js';
import { type RedisCluster, startRedisCluster } from '../support/redis-cluster.js';
import { redisServerInstalled } from '../support/redis-servers.js';
import { bearer, type ServedReferenceApp, servedReferenceApp } from '../support/reference-app.js';
import { describeStoreContract } from './store-contract.js';

const available = redisServerInstalled();
let cluster: RedisCluster;
const clients: Cluster[] = [];
const nodeRedisClusters: { destroy(): void }[] = [];

function clusterClient(): Cluster {
  const client = new Cluster([...cluster.nodes], { enableAutoPipelining: true });
  client.on('error', () => {}); // failures surface through commands
  clients.push(client);
  return client;
}

// Bounded generously: on a loaded machine six redis-server processes and the cluster's handshake
// take a while; on an idle one, about 3 s.
beforeAll(async () => {
  if (available) cluster = await startRedisCluster();
}, 120_000);
afterAll(async () => {
  // Not QUIT: a client of a cluster that lost a master may wait for it; the servers go next anyway.
  for (const client of clients) client.disconnect();
  for (const client of nodeRedisClusters) client.destroy();
  await cluster?.stop();
});

let limited = 0;
// The contract through each library's cluster client. The node-redis one waits for a replica on
// each completion (WAIT goes in a pipeline to the record's master), and starts on masters that have
// forgotten the scripts, so its first calls go through NOSCRIPT and EVAL.
const contractClients = {
  'ioredis Cluster': async () => ({ client: clusterClient(), replicas: 0 }),
  'node-redis createCluster': async () => {
    for (const { port } of await cluster.masters()) await cluster.cli(port, 'script', 'flush');
    const client = createCluster({
      rootNodes: cluster.nodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })),
    });
    client.on('error', () => {});
    await client.connect();
    nodeRedisClusters.push(client);
    // Generous: WAIT answers as soon as the replica acknowledges, which a loaded machine delays.
    return { client, replicas: 1, replicationTimeoutMs: 5_000 };
  },
};
for (const [name, connect] of Object.entries(contractClients)) {
  let connected: Awaited<ReturnType<typeof connect>>;
  const prefix = `contract-${name.split(' ')[0]}:`;
  describeStoreContract(
    `Redis Cluster (${name})`,
    {
      before: async () => {
        connected = await connect();
      },
      make: (now) => redisIdempotencyStore({ ...connected, prefix, now }),
      makeLimited: async (now, { ownerMaxEntries, ownerMaxBytes }) =>
        redisIdempotencyStore({
          ...connected,
          prefix: `${prefix}limited-${++limited}:`,
          now,
          ownerMaxEntries,
          ownerMaxBytes,
        }),
      totalBudgets: false,
    },
    available,
  );
}

/** The master serving `slot`. */
function masterOf(masters: Awaited<ReturnType<RedisCluster['masters']>>, slot: number): number {
  return masters.find((m) => m.slots.some(([from, to]) => slot >= from && slot <= to))!.port;
}

/** Keys under `prefix` on each master, by SCAN (bounded: the test writes at most 30 000 of them). */
async function keysPerMaster(prefix: string): Promise<Map<number, string[]>> {
  const result = new Map<number, string[]>();
  for (const { port } of await cluster.masters()) {
    const out = await cluster.cli(port, '--scan', '--pattern', `${prefix}*`);
    result.set(
      port,
      out.split('\n').filter((line) => line !== ''),
    );
  }
  return result;
}

describe.skipIf(!available)('the Redis idempotency store on a Redis Cluster', () => {
  it("keeps a claim's keys in the record's own slot", async () => {
    const store = redisIdempotencyStore({ client: clusterClient(), prefix: 'slot:' });
    const claimed = await store.claim('k', 'fp', 10_000, 'sub:alice');
    expect(claimed.kind).toBe('claimed');
    const keys = [...(await keysPerMaster('slot:')).values()].flat();
    expect(keys.sort()).toEqual(['slot:{sub:alice}']);
    expect(new Set(keys.map(keySlot)).size).toBe(1);
  });

  it("spreads 10,000 owners' records, from two store instances, over every master, none holding half", async () => {
    const stores = [
      redisIdempotencyStore({ client: clusterClient(), prefix: 'spread:' }),
      redisIdempotencyStore({ client: clusterClient(), prefix: 'spread:' }),
    ];
    for (let batch = 0; batch < 10; batch++) {
      const outcomes = await Promise.all(
        Array.from({ length: 1_000 }, (_, i) => {
          const owner = batch * 1_000 + i;
          return stores[owner % 2]!.claim(`order-${owner}`, 'fp', 60_000, `sub:user-${owner}`);
        }),
      );
      expect(outcomes.every((o) => o.kind === 'claimed')).toBe(true);
    }
    const perMaster = await keysPerMaster('spread:');
    // One hash per owner, each holding the owner's one record.
    const records = [...perMaster.values()].map((keys) => keys.length);
    expect(records).toHaveLength(3);
    expect(records.reduce((a, b) => a + b, 0)).toBe(10_000);
    for (const count of records) {
      expect(count).toBeGreaterThan(0);
      expect(count).toBeLessThan(5_000);
    }
  });
});

const ORDER = JSON.stringify({ bookId: 2, quantity: 1 });

/** One instance of the reference app on the cluster (the same environment for both). */
const startInstance = () =>
  servedReferenceApp({
    REDIS_CLUSTER_NODES: cluster.nodesSetting,
    IDEMPOTENCY_STORE: 'redis',
    RATE_LIMIT_STORE: 'redis',
    RATE_LIMIT_MAX: '40',
    RATE_LIMIT_WINDOW: '3600',
    STORE_PREFIX: 'app',
  });

async function post(instance: ServedReferenceApp, token: string, key: string) {
  const response = await fetch(`${instance.url}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: token, 'idempotency-key': `"${key}"` },
    body: ORDER,
  });
  return {
    status: response.status,
    replayed: response.headers.get('idempotent-replayed'),
    requestId: response.headers.get('x-request-id'),
    text: await response.text(),
  };
}

/** What the middleware logs when the store rejected a completion (docs/idempotency.md). */
const UNACKNOWLEDGED = [
  // Its master went away.
  'idempotency: response could not be stored',
  // Its master did not answer within the store's bound: stored or not, unknown.
  'idempotency: storing the response did not answer within storeTimeoutMs: a retry is replayed if it was stored, else runs again after the lease',
  // Stored on the master, but fewer replicas than asked had it (or were online to wait for).
  'idempotency: response stored, on fewer replicas than required: a failover before they have it could run a retry again',
];

/**
 * Whether the instance logged that the record of this request was not acknowledged under the
 * durability setting. Such a response was sent, but a failover may lose its record.
 */
function notStored(instance: ServedReferenceApp, requestId: string | null): boolean {
  return instance.logger.entries.some(
    (e) => UNACKNOWLEDGED.includes(e.message) && e.fields.requestId === requestId,
  );
}

/** Orders of user `sub` on one instance (the data store is each instance's memory). */
async function orders(instance: ServedReferenceApp, sub: string, token: string): Promise<number> {
  const response = await fetch(`${instance.url}/users/${sub}/orders?page[size]=100`, {
    headers: { authorization: token },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: unknown[] }).data.length;
}

describe.skipIf(!available)('two instances of the reference app on a Redis Cluster', () => {
  let a: ServedReferenceApp;
  let b: ServedReferenceApp;
  beforeAll(async () => {
    [a, b] = await Promise.all([startInstance(), startInstance()]);
  });
  afterAll(async () => {
    for (const instance of [a, b]) await instance?.stop();
  });

  it('executes a 30-way race on one key, split over both instances, once', async () => {
    const token = await bearer('1');
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => post(i % 2 === 0 ? a : b, token, 'race')),
    );
    for (const r of responses) expect([201, 409]).toContain(r.status);
    const created = responses.filter((r) => r.status === 201);
    for (const r of created) expect(r.text).toBe(created[0]!.text);
    expect((await orders(a, '1', token)) + (await orders(b, '1', token))).toBe(1);
  });

  it('shares a rate limit across instances', async () => {
    const token = await bearer('2');
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      for (const instance of [a, b]) {
        const response = await fetch(`${instance.url}/books`, { headers: { authorization: token } });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
    }
    // 40 a window in all; per instance, each would have let its 30 through.
    expect(statuses.filter((s) => s === 200)).toHaveLength(40);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  });

  it('goes on through a master failover without running an acknowledged write twice', async () => {
    const users = Array.from({ length: 30 }, (_, i) => String(100 + i));
    const tokens = new Map(await Promise.all(users.map(async (u) => [u, await bearer(u)] as const)));
    const acknowledged = new Map<string, { user: string; text: string }>();
    const unacknowledgedAfterKill = new Set<string>();
    const masters = await cluster.masters();
    const victim = masterOf(masters, keySlot(`{sub:${users[0]}}`));
    let killed = false;
    // Bounded: 12 rounds of one keyed write per user, alternating instances; the master holding
    // the first user's records is killed after round 4. A request the store could not serve (503)
    // is retried with its key until it is answered: the failover takes the node timeout (5 s) and
    // an election, so for up to 60 s, every 250 ms.
    for (let round = 0; round < 12; round++) {
      if (round === 4) {
        await cluster.kill(victim);
        killed = true;
      }
      await Promise.all(
        users.map(async (user, i) => {
          const key = `order-${user}-${round}`;
          const deadline = Date.now() + 60_000;
          while (Date.now() < deadline) {
            const instance = (round + i) % 2 === 0 ? a : b;
            const r = await post(instance, tokens.get(user)!, key);
            if (r.status === 201) {
              if (!notStored(instance, r.requestId)) acknowledged.set(key, { user, text: r.text });
              else if (killed) unacknowledgedAfterKill.add(user);
              return;
            }
            expect([503, 409]).toContain(r.status);
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        }),
      );
    }
    expect(killed).toBe(true);
    // The replica of the killed master took its slots over.
    await cluster.healthy(60_000);
    expect((await cluster.masters()).map((m) => m.port)).not.toContain(victim);
    // Every write whose record was acknowledged (completed, and on a replica: REDIS_WAIT_REPLICAS=1
    // by default on a cluster) is replayed, on either instance, never run again; the first user's
    // records, on the killed master, included.
    const onVictim = [...acknowledged.values()].filter(
      (w) => masterOf(masters, keySlot(`{sub:${w.user}}`)) === victim,
    );
    expect(onVictim.length).toBeGreaterThanOrEqual(12);
    // The promoted replica has no replica of its own: its owners' writes after the kill went on,
    // logged as not replicated (no WAIT to wait out), and only theirs.
    expect(unacknowledgedAfterKill.size).toBeGreaterThan(0);
    for (const user of unacknowledgedAfterKill)
      expect(masterOf(masters, keySlot(`{sub:${user}}`))).toBe(victim);
    for (const [key, write] of acknowledged) {
      const again = await post(key.endsWith('0') ? b : a, tokens.get(write.user)!, key);
      expect(again.status, key).toBe(201);
      expect(again.replayed, key).toBe('true');
      expect(again.text, key).toBe(write.text);
    }
  }, 300_000);
});

/**
 * The keyed-write comparison of `npm run bench` (issue 28): the reference app's keyed
 * `POST /orders` on its memory store, Redis and Redis Cluster against the idempotency libraries
 * users would pick instead, on the same peers: Fastify with `@node-idempotency/core` and Express
 * with `express-idempotency`, each on its memory and Redis storage (`bench/peers/`).
 */
import { Redis } from 'ioredis';
import { REDIS_URL } from '../test/support/services.js';

/** The peers with an idempotency library, by bench server name: which peer, which storage. */
export const KEYED_PEERS = {
  'fastify+node-idempotency': { peer: 'fastify', store: 'memory' },
  'fastify+node-idempotency+redis': { peer: 'fastify', store: 'redis' },
  'express+express-idempotency': { peer: 'express', store: 'memory' },
  'express+express-idempotency+redis': { peer: 'express', store: 'redis' },
  'express+express-idempotency+cluster': { peer: 'express', store: 'cluster' },
} as const;
export type KeyedPeerName = keyof typeof KEYED_PEERS;

/**
 * The reference app with `IDEMPOTENCY_STORE=redis` on a Redis Cluster of 3 masters and 3 replicas
 * the bench starts from `redis-server` on loopback (`REDIS_CLUSTER_NODES`, `REDIS_WAIT_REPLICAS`
 * at its cluster default of 1) and stops at the end.
 */
export const CLUSTER_APP = 'app+cluster';
/**
 * The same without waiting for a replica (`REDIS_WAIT_REPLICAS=0`): the two side by side are what
 * the durability setting costs (docs/deployment.md, "Redis Cluster").
 */
export const CLUSTER_APP_NO_WAIT = 'app+cluster-nowait';

/**
 * The Redis database `express-idempotency-redis-adapter` writes to: it has no key prefix, and
 * writes each `Idempotency-Key` as it is, so its keys are kept apart from everything else and
 * deleted at the end (they are UUIDs).
 */
const EXPRESS_PEER_DB = 9;

/**
 * The environment of a keyed peer, its keys under `prefix` (or in its own database); `clusterNodes`
 * (`host:port,...`) for one on the cluster; `redisUrl` for one on another Redis than REDIS_URL.
 */
export function keyedPeerEnv(
  name: KeyedPeerName,
  prefix: string,
  clusterNodes = '',
  redisUrl = REDIS_URL,
): Record<string, string> {
  const { peer, store } = KEYED_PEERS[name];
  const url = new URL(redisUrl);
  if (peer === 'express') url.pathname = `/${EXPRESS_PEER_DB}`;
  return {
    PEER_IDEMPOTENCY: 'library',
    PEER_STORE: store,
    STORE_PREFIX: prefix,
    REDIS_URL: url.href,
    REDIS_CLUSTER_NODES: clusterNodes,
  };
}

/** The peer and storage of a bench server with an idempotency library; `undefined` for any other. */
export function keyedPeer(name: string): (typeof KEYED_PEERS)[KeyedPeerName] | undefined {
  return name in KEYED_PEERS ? KEYED_PEERS[name as KeyedPeerName] : undefined;
}

/** Whether a bench server is the reference app on the cluster. */
export const isClusterApp = (name: string) => name === CLUSTER_APP || name === CLUSTER_APP_NO_WAIT;

/** Whether a bench server needs the Redis Cluster. */
export const onCluster = (name: string) => isClusterApp(name) || keyedPeer(name)?.store === 'cluster';

/** The environment without the memory store's budgets, for an app on another store (it refuses them). */
export function withoutMemoryBudgets(env: Record<string, string>): Record<string, string> {
  const { IDEMPOTENCY_MAX_ENTRIES: _entries, IDEMPOTENCY_MAX_BYTES: _bytes, ...rest } = env;
  return rest;
}

/** Deletes the keys the Express peer's Redis adapter left: UUID-named keys of its own database. */
export async function deleteExpressPeerKeys(): Promise<void> {
  const url = new URL(REDIS_URL);
  url.pathname = `/${EXPRESS_PEER_DB}`;
  const redis = new Redis(url.href, { lazyConnect: true });
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  try {
    await redis.connect();
    for await (const keys of redis.scanStream({ count: 1_000 })) {
      const ours = (keys as string[]).filter((key) => uuid.test(key));
      if (ours.length > 0) await redis.del(...ours);
    }
  } finally {
    redis.disconnect();
  }
}

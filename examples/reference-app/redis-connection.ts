import { Cluster } from 'ioredis';
import { createClient } from 'redis';
import type { RedisScriptClient } from 'rest-conventions/idempotency';
import type { Config } from './config.js';
import { hostOf, reasonOf, STORE_CONNECT_TIMEOUT_MS, StartupError, within } from './store-startup.js';

/** A Redis connection (or cluster client) of the app, for one or both Redis stores. */
export interface RedisConnection {
  readonly client: RedisScriptClient;
  /**
   * For `GET /health/ready`: resolves while Redis serves, rejects otherwise (docs/deployment.md,
   * "Health and readiness"). One node: `PING`. A cluster: see {@link clusterServes}.
   */
  readonly ready: () => Promise<unknown>;
  readonly close: () => Promise<unknown>;
}

/**
 * Connect to `REDIS_URL` or, when set, the `REDIS_CLUSTER_NODES`, once at start-up; say clearly
 * when Redis is not there. `name` is what Redis lists it as (`CLIENT SETNAME`, `CLIENT LIST`).
 * Afterwards a command that cannot be sent fails fast, and the middlewares' store timeouts decide
 * what the client sees (docs/deployment.md).
 *
 * Which client (docs/idempotency.md, "Stores"):
 * - one node: node-redis. It writes the commands of one event-loop iteration in one write, while each
 *   request is read in its own turn; a write per command cost a keyed POST a quarter of the app's
 *   CPU (docs/benchmarks.md). Its per-command timer is off: the middlewares bound every store call
 *   (`storeTimeoutMs`, `timeoutMs`);
 * - a cluster: ioredis `Cluster`, whose auto pipelining sends one write per master per turn, and
 *   whose failover the cluster suite runs.
 */
export async function connectRedis(config: Config, name: string): Promise<RedisConnection> {
  const nodes = config.redisClusterNodes;
  return nodes === undefined ? connectOne(config.redisUrl, name) : connectCluster(nodes, name);
}

/** What both clients have: connection errors as events, and a connect that resolves when ready. */
interface Connectable {
  on(event: 'error', listener: (error: Error) => void): unknown;
  connect(): Promise<unknown>;
}

/**
 * Connect within the start-up bound, the handshake included (a server that accepts and never
 * answers fails too), or abandon the client and throw one clear line. The error listener stays:
 * without one, either client reports each reconnection attempt as an unhandled 'error' event, and
 * the stores' own timeouts and policies decide what clients see while Redis is away.
 *
 * `explain` says better than the client's error why it failed, when the client did fail (not when
 * the server did not answer in time: asking it again would only wait again).
 */
async function connectWithin(
  host: string,
  client: Connectable,
  abandon: () => void,
  explain?: () => Promise<string | undefined>,
): Promise<void> {
  let lastError: unknown;
  client.on('error', (error) => {
    lastError = error;
  });
  try {
    await within(client.connect(), STORE_CONNECT_TIMEOUT_MS);
  } catch (error) {
    abandon();
    const explained = lastError === undefined ? undefined : await explain?.();
    throw new StartupError(explained ?? `Redis is not reachable at ${host}: ${reasonOf(lastError ?? error)}`);
  }
}

async function connectOne(url: string, name: string): Promise<RedisConnection> {
  const host = hostOf(url, 'REDIS_URL');
  const client = createClient({
    url,
    name,
    socket: { connectTimeout: STORE_CONNECT_TIMEOUT_MS },
    // While Redis is away, a command fails at once instead of waiting in a queue.
    disableOfflineQueue: true,
    commandOptions: { timeout: 0 },
  });
  await connectWithin(host, client, () => client.destroy());
  return { client, ready: () => client.ping(), close: () => client.close() };
}

async function connectCluster(
  nodes: NonNullable<Config['redisClusterNodes']>,
  name: string,
): Promise<RedisConnection> {
  const host = `cluster ${nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  const client = new Cluster([...nodes], {
    lazyConnect: true,
    enableAutoPipelining: true,
    redisOptions: {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      connectTimeout: STORE_CONNECT_TIMEOUT_MS,
      connectionName: name,
    },
  });
  await connectWithin(
    host,
    client,
    () => client.disconnect(),
    () => whyNotACluster(nodes, host),
  );
  return { client, ready: () => clusterServes(client), close: () => client.quit() };
}

/**
 * Whether the cluster serves every slot, as its masters see it: resolves at the first that answers
 * `CLUSTER INFO` with `cluster_state:ok`, rejects when every one answers otherwise or fails. Not
 * `PING`: ioredis sends it to a node at random, so with one master down a probe failed or passed by
 * chance. A master down while the others serve costs the owners on its slots a few seconds until
 * its replica takes over, on every instance alike: no reason to take this instance out of
 * rotation. A cluster that serves nothing (`cluster_state:fail`, or no master answers) is one.
 */
async function clusterServes(client: Cluster): Promise<void> {
  const masters = client.nodes('master');
  if (masters.length === 0) throw new Error('no Redis Cluster master known');
  await Promise.any(
    masters.map(async (node) => {
      const info = String(await node.call('CLUSTER', 'INFO'));
      if (!/^cluster_state:ok\r?$/m.test(info)) throw new Error('cluster_state is not ok');
    }),
  );
}

type Seed = NonNullable<Config['redisClusterNodes']>[number];

/** What one seed node answered when asked directly: its cluster fields, or why it did not answer. */
async function askSeed({ host, port }: Seed): Promise<{ info: string } | { unreachable: string }> {
  const probe = createClient({
    socket: { host, port, connectTimeout: STORE_CONNECT_TIMEOUT_MS, reconnectStrategy: false },
    disableOfflineQueue: true,
  });
  let lastError: unknown;
  probe.on('error', (error) => {
    lastError = error;
  });
  try {
    await within(probe.connect(), STORE_CONNECT_TIMEOUT_MS);
    // INFO answers on any Redis, with or without cluster support.
    return { info: String(await within(probe.sendCommand(['INFO', 'cluster']), STORE_CONNECT_TIMEOUT_MS)) };
  } catch (error) {
    return { unreachable: reasonOf(lastError ?? error) };
  } finally {
    probe.destroy();
  }
}

/**
 * Why the cluster client could not start, from the seed nodes asked one by one: one answers
 * without cluster support (one Redis named as a cluster), or none answers (with the reason of the
 * first, where the client only says "Failed to refresh slots cache."). Undefined otherwise: the
 * client's own reason then stands.
 */
async function whyNotACluster(nodes: readonly Seed[], host: string): Promise<string | undefined> {
  const answers = await Promise.all(nodes.map(askSeed));
  const named = (i: number) => `${nodes[i]!.host}:${nodes[i]!.port}`;
  const single = answers.findIndex((a) => 'info' in a && /cluster_enabled:0/.test(a.info));
  if (single >= 0) {
    return `Redis at ${named(single)} answers but is not a Redis Cluster (cluster_enabled:0); use REDIS_URL for a single node`;
  }
  const first = answers[0];
  if (first !== undefined && 'unreachable' in first && answers.every((a) => 'unreachable' in a)) {
    return `Redis is not reachable at ${host}: ${first.unreachable}`;
  }
  return undefined;
}

import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { redisServers, until } from './redis-servers.js';

const run = promisify(execFile);

/** A Redis Cluster of 3 masters and 3 replicas on loopback, started by a test from `redis-server`. */
export interface RedisCluster {
  /** Every node's port, in start order. */
  readonly ports: readonly number[];
  /** `127.0.0.1:<port>` of every node, for ioredis `Cluster`. */
  readonly nodes: readonly { host: string; port: number }[];
  /** The same, as the reference app's `REDIS_CLUSTER_NODES` takes them: `host:port,host:port,…`. */
  readonly nodesSetting: string;
  /** `redis-cli -p <port> <args>` against one node, its output. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The ports of the masters and the slot ranges each serves. */
  masters(): Promise<Array<{ port: number; slots: Array<[number, number]> }>>;
  /** SIGKILL one node (a crash: no shutdown, no save). */
  kill(port: number): Promise<void>;
  /**
   * Start a killed node again on its port, with its node id and cluster config: after a failover it
   * rejoins as a replica of the master that took its slots (wait with `healthy`).
   */
  restart(port: number): Promise<void>;
  /**
   * Resolves once every live node reports `cluster_state:ok`, every replica is in sync, and every
   * master counts each of its replicas online.
   */
  healthy(timeoutMs: number): Promise<void>;
  /** Kill every node still running and remove the data directory. */
  stop(): Promise<void>;
}

/** Whether a loopback port can be bound right now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Six ports free along with their cluster bus ports (port + 10 000), from a random base. */
async function freePorts(): Promise<number[]> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 9_000);
    const ports = Array.from({ length: 6 }, (_, i) => base + i);
    const free = await Promise.all(ports.flatMap((p) => [portFree(p), portFree(p + 10_000)]));
    if (free.every(Boolean)) return ports;
  }
  throw new Error('no six free loopback ports (with their bus ports) found for the Redis Cluster');
}

/**
 * Start 6 `redis-server` processes in cluster mode (no persistence, data in a temporary directory,
 * a 5 s node timeout: a failover takes seconds, and a node a loaded machine leaves unscheduled for a
 * second is not failed over) and join them with `redis-cli --cluster create`.
 * Every process is stopped by `stop`, which the caller runs in `afterAll` (also after a failure
 * here: a partly started cluster is stopped before the error is thrown).
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  // Another suite on this machine may take a port between the check and the start: a node that
  // cannot bind exits, and the cluster is started again on other ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts();
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

async function startOnFreePorts(): Promise<RedisCluster> {
  const servers = await redisServers('redis-cluster');
  const ports = await freePorts();
  const { cli, stop } = servers;
  const clusterArgs = ['--cluster-enabled', 'yes', '--cluster-node-timeout', '5000'];
  const spawnNode = (port: number) =>
    servers.start(port, [...clusterArgs, '--cluster-config-file', `nodes-${port}.conf`]);
  const running = (port: number) => {
    const child = servers.process(port);
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  };
  const alive = () => ports.filter(running);
  const cluster: RedisCluster = {
    ports,
    nodes: ports.map((port) => ({ host: '127.0.0.1', port })),
    nodesSetting: ports.map((port) => `127.0.0.1:${port}`).join(','),
    cli,
    async masters() {
      const lines = (await cli(alive()[0]!, 'cluster', 'nodes')).trim().split('\n');
      return lines
        .map((line) => line.split(' '))
        .filter((f) => f[2]!.includes('master') && !f[2]!.includes('fail'))
        .map((f) => ({
          port: Number(/:(\d+)@/.exec(f[1]!)![1]),
          slots: f.slice(8).map((range) => {
            const [from, to = from] = range.split('-').map(Number) as [number, number?];
            return [from, to] as [number, number];
          }),
        }));
    },
    async kill(port) {
      const child = servers.process(port)!;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await gone;
    },
    async restart(port) {
      if (running(port)) throw new Error(`node ${port} is running`);
      spawnNode(port);
      await servers.answering(port, 10_000);
    },
    healthy: (timeoutMs) =>
      until('Redis Cluster healthy', timeoutMs, async () => {
        const live = alive();
        const infos = await Promise.all(live.map((p) => cli(p, 'cluster', 'info').catch(() => '')));
        const reps = await Promise.all(live.map((p) => cli(p, 'info', 'replication').catch(() => '')));
        const replicas = reps.filter((info) => info.includes('role:slave'));
        // As the masters see their replicas, which is what the store's claim script reads: a replica
        // whose link is up may not be `state=online` at its master yet (the master waits for its
        // first acknowledgement), and a claim then counts 0 of 1 replicas.
        const onlineAtMasters = reps
          .filter((info) => info.includes('role:master'))
          .reduce((n, info) => n + (info.match(/state=online/g) ?? []).length, 0);
        return (
          infos.every((info) => info.includes('cluster_state:ok')) &&
          reps.every((info) => info.includes('role:master') || info.includes('master_link_status:up')) &&
          onlineAtMasters === replicas.length &&
          (await cluster.masters()).reduce((n, m) => n + m.slots.length, 0) > 0
        );
      }),
    stop,
  };
  try {
    for (const port of ports) spawnNode(port);
    await Promise.all(ports.map((port) => servers.answering(port, 10_000)));
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
    await cluster.healthy(60_000);
    return cluster;
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The reference app on a real Redis Cluster (3 masters, 3 replicas, started here from `redis-server`
 * on loopback ports by test/support/redis-cluster.ts and stopped in `afterAll`) while a master is
 * down: what `GET /health/ready` says (docs/deployment.md, "Health and readiness").
 *
 * The helper's nodes have a 1 s `cluster-node-timeout`: a killed master's replica takes over about
 * a second or two later. To look at the cluster while the master is down and not yet replaced, a
 * test raises the timeout on the live nodes first (`CONFIG SET`), and lowers it again to let the
 * failover happen.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceApp } from '../../examples/reference-app/composition-root.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { READINESS_TIMEOUT_MS } from '../../examples/reference-app/health/readiness.js';
import { connectInfrastructure, type Infrastructure } from '../../examples/reference-app/infrastructure.js';
import { type Served, serve } from '../../examples/reference-app/serve.js';
import { type RedisCluster, startRedisCluster } from '../support/redis-cluster.js';
import { memoryLogger } from '../support/reference-app.js';

/** Whether `redis-server` is installed; under CI=true it must be. */
function clusterAvailable(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    execFileSync('redis-cli', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true') throw new Error('redis-server and redis-cli are required under CI=true');
    console.warn('skipping the Redis Cluster outage tests: redis-server or redis-cli is not installed');
    return false;
  }
}

const available = clusterAvailable();
/** Room for a loaded machine on top of a bound; a hang would take far longer. */
const SLACK_MS = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
async function clusterState(state: 'ok' | 'fail', timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const infos = await Promise.all(
      live().map((port) => cluster.cli(port, 'cluster', 'info').catch(() => '')),
    );
    if (infos.every((info) => info.includes(`cluster_state:${state}`))) return;
    if (Date.now() > until)
      throw new Error(`the cluster did not report cluster_state:${state} in ${timeoutMs} ms`);
    await sleep(100);
  }
}

interface Instance {
  readonly url: string;
  readonly logger: ReturnType<typeof memoryLogger>;
  readonly served: Served;
  readonly infrastructure: Infrastructure;
}

let instance: Instance;

async function startInstance(): Promise<Instance> {
  const config = configFromEnv({
    REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','),
    IDEMPOTENCY_STORE: 'redis',
    RATE_LIMIT_STORE: 'redis',
    STORE_PREFIX: 'outage',
  });
  const infrastructure = await connectInfrastructure(config);
  const logger = memoryLogger();
  const served = await serve('node', createReferenceApp(config, logger, infrastructure), 0);
  return { url: `http://127.0.0.1:${served.port}`, logger, served, infrastructure };
}

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
afterAll(async () => {
  await instance?.served.close();
  // Bounded: QUIT to a cluster that lost its nodes may wait for them.
  await Promise.race([instance?.infrastructure.close(), sleep(2_000)]);
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

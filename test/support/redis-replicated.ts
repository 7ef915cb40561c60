import { redisServers, until } from './redis-servers.js';
import { tcpProxy } from './tcp-proxy.js';

/**
 * A Redis master and one replica of it on loopback, started by a test from `redis-server` (no
 * persistence, data in a temporary directory), for what only a replica shows: `WAIT`.
 */
export interface ReplicatedRedis {
  /** `redis://127.0.0.1:<port>` of the master. */
  readonly url: string;
  /** The replicas the master counts online (`state=online` in its `INFO replication`). */
  onlineReplicas(): Promise<number>;
  /**
   * Seconds since the replica last acknowledged, while the master counts it online (its `lag` there,
   * read as the store's claim script reads it); else undefined.
   */
  replicaLag(): Promise<number | undefined>;
  /**
   * SIGSTOP the replica: the master still counts it online (until `repl-timeout`), but it
   * acknowledges nothing, so a `WAIT` for it times out, and its `replicaLag` grows.
   */
  pauseReplica(): Promise<void>;
  /** SIGCONT the replica, and wait until it has caught up and the master sees it acknowledge. */
  resumeReplica(): Promise<void>;
  /** SIGKILL the replica, and wait until the master counts no replica online. */
  killReplica(): Promise<void>;
  /** Kill both servers and remove the data directory. */
  stop(): Promise<void>;
}

/**
 * Starts the pair and resolves once the replica is online; `stop` it in `afterAll`. With
 * `linkDelayMs`, the replica replicates through a loopback proxy that passes every byte that late,
 * either way: a slow link, over which the replica stays online and acknowledging (every second),
 * but no `WAIT` shorter than twice the delay is answered.
 */
export async function startReplicatedRedis({ linkDelayMs = 0 } = {}): Promise<ReplicatedRedis> {
  const servers = await redisServers('redis-replicated');
  const masterPort = await servers.startOnFreePort().catch(async (error: unknown) => {
    await servers.stop();
    throw error;
  });
  const replication = () => servers.cli(masterPort, 'info', 'replication');
  const onlineReplicas = async () => ((await replication()).match(/state=online/g) ?? []).length;
  const replicaLag = async () => {
    const lag = /state=online,offset=\d+,lag=(\d+)/.exec(await replication())?.[1];
    return lag === undefined ? undefined : Number(lag);
  };
  const link =
    linkDelayMs > 0
      ? await tcpProxy({ host: '127.0.0.1', port: masterPort }, { delayMs: linkDelayMs })
      : undefined;
  const stop = async () => {
    await servers.stop();
    await link?.close();
  };
  try {
    const replicaPort = await servers.startOnFreePort([
      '--replicaof',
      '127.0.0.1',
      String(link?.port ?? masterPort),
    ]);
    const replica = servers.process(replicaPort)!;
    await until('the replica online', 20_000, async () => (await onlineReplicas()) === 1);
    return {
      url: `redis://127.0.0.1:${masterPort}`,
      onlineReplicas,
      replicaLag,
      async pauseReplica() {
        replica.kill('SIGSTOP');
      },
      async resumeReplica() {
        replica.kill('SIGCONT');
        // Caught up as the master sees it too: acknowledging again, as a claim reads it.
        await until(
          'the replica caught up',
          20_000,
          async () =>
            (await servers.cli(replicaPort, 'info', 'replication')).includes('master_link_status:up') &&
            ((await replicaLag()) ?? Number.POSITIVE_INFINITY) <= 1,
        );
      },
      async killReplica() {
        const gone = new Promise<void>((resolve) => replica.once('exit', () => resolve()));
        replica.kill('SIGCONT');
        replica.kill('SIGKILL');
        await gone;
        await until('no replica online', 20_000, async () => (await onlineReplicas()) === 0);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

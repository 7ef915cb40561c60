import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
   * SIGSTOP the replica: the master still counts it online (until `repl-timeout`), but it
   * acknowledges nothing, so a `WAIT` for it times out.
   */
  pauseReplica(): Promise<void>;
  /** SIGCONT the replica, and wait until it has caught up. */
  resumeReplica(): Promise<void>;
  /** SIGKILL the replica, and wait until the master counts no replica online. */
  killReplica(): Promise<void>;
  /** Kill both servers and remove the data directory. */
  stop(): Promise<void>;
}

/** Two loopback ports free right now. */
async function twoFreePorts(): Promise<[number, number]> {
  const servers = [net.createServer(), net.createServer()];
  const ports = await Promise.all(
    servers.map(
      (server) =>
        new Promise<number>((resolve) =>
          server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
        ),
    ),
  );
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports as [number, number];
}

/** Polls `check` every 50 ms until it holds, for at most `ms`. */
async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} not within ${ms} ms`);
    await sleep(50);
  }
}

/** Starts the pair and resolves once the replica is online; `stop` it in `afterAll`. */
export async function startReplicatedRedis(): Promise<ReplicatedRedis> {
  const dir = await mkdtemp(path.join(tmpdir(), 'redis-replicated-'));
  const [masterPort, replicaPort] = await twoFreePorts();
  const children: ChildProcess[] = [];
  const server = (port: number, ...extra: string[]) => {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dbfilename',
        `dump-${port}.rdb`,
        '--dir',
        dir,
        ...extra,
      ],
      { stdio: 'ignore' },
    );
    children.push(child);
    return child;
  };
  const cli = async (port: number, ...args: string[]) =>
    (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 })).stdout;
  const onlineReplicas = async () =>
    ((await cli(masterPort, 'info', 'replication')).match(/state=online/g) ?? []).length;
  const stop = async () => {
    await Promise.all(
      children.map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGCONT');
        child.kill('SIGKILL');
        return gone;
      }),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    server(masterPort);
    const replica = server(replicaPort, '--replicaof', '127.0.0.1', String(masterPort));
    await until('the replica online', 20_000, async () => (await onlineReplicas()) === 1);
    return {
      url: `redis://127.0.0.1:${masterPort}`,
      onlineReplicas,
      async pauseReplica() {
        replica.kill('SIGSTOP');
      },
      async resumeReplica() {
        replica.kill('SIGCONT');
        await until('the replica caught up', 20_000, async () =>
          (await cli(replicaPort, 'info', 'replication')).includes('master_link_status:up'),
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

/**
 * Whether `redis-server` and `redis-cli` are installed, for the tests that start their own servers;
 * under CI=true they must be.
 */
export function redisServerInstalled(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    execFileSync('redis-cli', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true') throw new Error('redis-server and redis-cli are required under CI=true');
    console.warn('skipping tests that start their own Redis: redis-server or redis-cli is not installed');
    return false;
  }
}

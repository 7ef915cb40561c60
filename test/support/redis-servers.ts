import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * `redis-server` processes of a test's (or a benchmark's) own, on loopback ports, keeping nothing
 * on disk but in one temporary folder, which `stop` removes with the processes.
 */
export interface RedisServers {
  /** Starts `redis-server` on `port` with `args` after the common ones; under `wrapper` (valgrind), if given. */
  start(port: number, args?: readonly string[], wrapper?: readonly string[]): ChildProcess;
  /** `redis-cli -p <port> <args>` against one server, its output (bounded: 10 s). */
  cli(port: number, ...args: string[]): Promise<string>;
  /**
   * Polls until the server this set started on `port` answers, for at most `ms`: its own process,
   * by `INFO server`'s `process_id`, not another that held the port first (another test suite may
   * run on this machine). Rejects at once if the process exited (its port was taken).
   */
  answering(port: number, ms: number): Promise<void>;
  /**
   * Starts `redis-server` with `args` on a loopback port that was free, and resolves with the port
   * once it answers; another port is tried when another process took it first (up to 5 times).
   */
  startOnFreePort(args?: readonly string[]): Promise<number>;
  /** The running process on `port`, if any. */
  process(port: number): ChildProcess | undefined;
  /** Kills every server still running (a stopped one too) and removes the folder. */
  stop(): Promise<void>;
}

/** Polls `check` every 50 ms until it holds (a throw counts as not yet), for at most `ms`. */
export async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

/** A loopback port free right now (bound, then closed). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Every server any `redisServers` of this process started: killed when the process exits, should a
 * test's `afterAll` never run (a worker ended early), so that none outlives the test run.
 */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

export async function redisServers(name: string): Promise<RedisServers> {
  const dir = await mkdtemp(path.join(tmpdir(), `${name}-`));
  const children = new Map<number, ChildProcess>();
  const cli = async (port: number, ...args: string[]) =>
    (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 })).stdout;
  const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
  const answering = async (port: number, ms: number) => {
    const child = children.get(port);
    let gone = false;
    await until(`redis-server on ${port} answering`, ms, async () => {
      gone = child !== undefined && exited(child);
      if (gone) return true;
      const info = await cli(port, 'info', 'server');
      return child === undefined || info.includes(`process_id:${child.pid}\r`);
    });
    if (gone)
      throw new Error(
        `redis-server on ${port} exited (${child!.exitCode ?? child!.signalCode}): port taken?`,
      );
  };
  const start = (port: number, args: readonly string[] = [], wrapper: readonly string[] = []) => {
    const common = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    const files = ['--dir', dir, '--dbfilename', `dump-${port}.rdb`];
    const [command, ...rest] = [...wrapper, 'redis-server', ...common, ...files, ...args];
    const child = spawn(command!, rest, { stdio: 'ignore' });
    children.set(port, child);
    started.add(child);
    child.once('exit', () => started.delete(child));
    return child;
  };
  return {
    start,
    cli,
    answering,
    async startOnFreePort(args = []) {
      for (let attempt = 1; ; attempt++) {
        const port = await freePort();
        const child = start(port, args);
        try {
          await answering(port, 20_000);
          return port;
        } catch (error) {
          if (!exited(child)) child.kill('SIGKILL');
          if (attempt === 5) throw error;
        }
      }
    },
    process: (port) => children.get(port),
    async stop() {
      await Promise.all(
        [...children.values()].map((child) => {
          if (exited(child)) return Promise.resolve();
          const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
          child.kill('SIGCONT');
          child.kill('SIGKILL');
          return gone;
        }),
      );
      await rm(dir, { recursive: true, force: true });
    },
  };
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

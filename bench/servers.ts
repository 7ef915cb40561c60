/**
 * Starting and stopping the benchmarked servers: each bundled once with esbuild (as deployed, no
 * TypeScript loader at run time), run by plain node, pinned to its own core with `taskset` when the
 * machine has two cores or more and `taskset` exists (the load generator keeps the other one).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

export interface Server {
  readonly name: string;
  readonly child: ChildProcess;
  readonly port: number;
}

const CACHE = join('node_modules', '.cache', 'rest-conventions-bench');
/**
 * Extra node flags for every benchmarked server, from `BENCH_NODE_FLAGS` (space-separated), for a
 * profile: `--cpu-prof`, or `--perf-basic-prof` to name the JIT code callgrind shows as `???`
 * (docs/benchmarks.md, "Method").
 */
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');
/** How long a server may take to print its port. */
const START_TIMEOUT_MS = 120_000;

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Core 0 for this process (the load generator), core 1 for the servers; `undefined`: not pinned. */
export const pinning: { readonly servers: string; readonly loader: string } | undefined =
  availableParallelism() >= 2 && hasTaskset() ? { servers: '1', loader: '0' } : undefined;

/** Pins the calling process (the load generator) to its core. */
export function pinLoadGenerator(): void {
  if (pinning !== undefined)
    execFileSync('taskset', ['-p', '-c', pinning.loader, String(process.pid)], { stdio: 'ignore' });
}

/** Bundles an entry point (the package's source through the tsconfig paths, dependencies external). */
export async function bundle(entry: string, name: string): Promise<string> {
  const outfile = join(CACHE, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

/**
 * Starts a bundled server on an ephemeral port and waits for it to print the port. `wrapper` runs
 * node under another program (valgrind), unpinned.
 */
export async function start(
  name: string,
  script: string,
  env: Record<string, string>,
  wrapper?: readonly string[],
): Promise<Server> {
  const node = [...(wrapper ?? []), process.execPath, ...NODE_FLAGS, script];
  const [command, ...args] =
    pinning === undefined || wrapper !== undefined ? node : ['taskset', '-c', pinning.servers, ...node];
  const child = spawn(command!, args, {
    env: { ...process.env, ...env, PORT: '0', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Its output stays drained after the port is read, so later log lines never block it.
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    let found = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not listen within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    child.stdout!.on('data', (chunk) => {
      if (found) return;
      output += String(chunk);
      const match = /(?:listening|localhost:)\D*(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        found = true;
        resolve(Number(match[1]));
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before listening`));
    });
  });
  return { name, child, port };
}

export async function stop(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

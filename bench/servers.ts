/**
 * Starting and stopping the benchmarked servers: each bundled once with esbuild (as deployed, no
 * TypeScript loader at run time), run by plain node, or by Bun or Deno from their npm packages,
 * pinned to its own core with `taskset` when the machine has two cores or more and `taskset` exists
 * (the load generator keeps the other one).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { type RuntimeName, runtimeBinary, WORKER_BUILD_OPTIONS } from '../test/support/runtimes.js';

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
const flags = (name: string) => (process.env[name] ?? '').split(' ').filter((flag) => flag !== '');
const NODE_FLAGS = flags('BENCH_NODE_FLAGS');
/**
 * The same for Bun (`BENCH_BUN_FLAGS`, e.g. `--cpu-prof-md --cpu-prof-dir=<dir>`) and Deno
 * (`BENCH_DENO_FLAGS`): each writes its profile when the bench stops it (bench/runtimes/serve.ts).
 */
const RUNTIME_FLAGS = { bun: flags('BENCH_BUN_FLAGS'), deno: flags('BENCH_DENO_FLAGS') };
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

/** The JavaScript runtimes a server may run on besides Node, from their npm packages. */
export type OtherRuntime = Extract<RuntimeName, 'bun' | 'deno'>;

/**
 * Bundles an entry point for Bun or Deno as a Worker module is bundled (`WORKER_BUILD_OPTIONS`:
 * one ES module, its dependencies inside, Node built-ins left to the runtime), with the package's
 * source through the tsconfig paths, as {@link bundle} does: the same code as the Node servers run.
 */
export async function bundleForRuntime(entry: string, name: string): Promise<string> {
  const { tsconfigRaw: _source, ...worker } = WORKER_BUILD_OPTIONS;
  const outfile = join(CACHE, `${name}.mjs`);
  await build({ ...worker, entryPoints: [entry], outfile, logLevel: 'warning' });
  return outfile;
}

/** How a runtime runs a bundle: the command before the script's path. */
function runtimeCommand(runtime: OtherRuntime): string[] {
  const binary = runtimeBinary(runtime);
  if (binary === undefined) throw new Error(`${runtime}: its npm package is not installed for this platform`);
  // Deno: the network on loopback, the environment (settings), and reading files (the app's docs page).
  return runtime === 'bun'
    ? [binary, 'run', ...RUNTIME_FLAGS.bun]
    : [
        binary,
        'run',
        '--allow-net=127.0.0.1',
        '--allow-env',
        '--allow-read',
        '--no-prompt',
        '--no-config',
        ...RUNTIME_FLAGS.deno,
      ];
}

/** Whether Bun or Deno is installed for this platform (their npm packages are per platform). */
export const hasRuntime = (runtime: OtherRuntime) => runtimeBinary(runtime) !== undefined;

export interface StartOptions {
  /** Runs node under another program (valgrind), unpinned. */
  readonly wrapper?: readonly string[];
  /** Runs the bundle on Bun or Deno instead of node (see {@link bundleForRuntime}). */
  readonly runtime?: OtherRuntime;
}

/** Starts a bundled server on an ephemeral port and waits for it to print the port. */
export async function start(
  name: string,
  script: string,
  env: Record<string, string>,
  { wrapper, runtime }: StartOptions = {},
): Promise<Server> {
  const node = [
    ...(wrapper ?? []),
    ...(runtime === undefined ? [process.execPath, ...NODE_FLAGS] : runtimeCommand(runtime)),
    script,
  ];
  const [command, ...args] =
    pinning === undefined || wrapper !== undefined ? node : ['taskset', '-c', pinning.servers, ...node];
  const child = spawn(command!, args, {
    env: {
      ...process.env,
      ...env,
      PORT: '0',
      NODE_ENV: 'production',
      // Deno's caches stay with the bench's, out of the user's home.
      DENO_DIR: join(CACHE, 'deno'),
      DENO_NO_UPDATE_CHECK: '1',
    },
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

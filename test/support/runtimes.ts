/**
 * Other JavaScript runtimes for the fetch-level suite: Bun, Deno and workerd from the npm registry
 * (dev dependencies), each started on a free loopback port and stopped by the test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { type BuildOptions, build } from 'esbuild';
import { ensureBuilt, root } from './built-package.js';

const require = createRequire(import.meta.url);
const fixtures = join(root, 'test', 'runtimes', 'fixtures');

export const RUNTIMES = ['bun', 'deno', 'workerd'] as const;
export type RuntimeName = (typeof RUNTIMES)[number];

/** A file of an installed package, or `undefined` when it is not installed (another platform). */
function packageFile(resolvePackageJson: () => string, file: string): string | undefined {
  try {
    return join(dirname(resolvePackageJson()), file);
  } catch {
    return undefined;
  }
}

/** The runtime's binary as its npm package installs it, or `undefined` on another platform. */
export function runtimeBinary(runtime: RuntimeName): string | undefined {
  const path =
    runtime === 'bun'
      ? packageFile(() => require.resolve('@oven/bun-linux-x64/package.json'), 'bin/bun')
      : runtime === 'deno'
        ? packageFile(() => require.resolve('@deno/linux-x64-glibc/package.json'), 'deno')
        : packageFile(() => (require('workerd') as { default: string }).default, 'workerd');
  return path !== undefined && existsSync(path) ? path : undefined;
}

/**
 * How a Worker is bundled (as a command line: {@link WORKER_BUNDLE_FLAGS}): one ES module, the package
 * resolved through its `exports` (the built `dist/`, browser and worker conditions first), Node
 * built-ins left to the runtime under their `node:` names. Not the repository's tsconfig paths (they
 * point at src/): the package as users install it.
 */
export const WORKER_BUILD_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['browser', 'module', 'main'],
  external: ['node:*'],
  tsconfigRaw: {},
  logLevel: 'silent',
} as const satisfies BuildOptions;

/** The same options as esbuild's command line has them (docs/runtimes.md shows that command). */
export const WORKER_BUNDLE_FLAGS = [
  '--bundle',
  `--format=${WORKER_BUILD_OPTIONS.format}`,
  `--platform=${WORKER_BUILD_OPTIONS.platform}`,
  `--conditions=${WORKER_BUILD_OPTIONS.conditions.join(',')}`,
  `--main-fields=${WORKER_BUILD_OPTIONS.mainFields.join(',')}`,
  ...WORKER_BUILD_OPTIONS.external.map((pattern) => `--external:'${pattern}'`),
];

/**
 * Bundles `test/runtimes/fixtures/worker.ts` with {@link WORKER_BUILD_OPTIONS}. A bare `crypto`
 * import fails the build here.
 */
export async function bundleWorker(outDir: string): Promise<string> {
  ensureBuilt();
  const outfile = join(outDir, 'worker.js');
  await build({ ...WORKER_BUILD_OPTIONS, entryPoints: [join(fixtures, 'worker.ts')], outfile });
  for (const file of ['bun-serve.js', 'deno-serve.js', 'workerd.capnp'])
    await copyFile(join(fixtures, file), join(outDir, file));
  return outfile;
}

/** A free loopback port (for workerd, which is told its port rather than reporting one). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningRuntime {
  readonly origin: string;
  /** What the runtime printed so far, stdout and stderr together. */
  output(): string;
  stop(): Promise<void>;
}

/** Runtimes still running, stopped when the test process exits whatever happened to the test. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function stopper(child: ChildProcess): () => Promise<void> {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
}

/** Resolves with the port once the child prints `listening <port>`; rejects if it exits first. */
function announcedPort(child: ChildProcess, output: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening after 20 s:\n${output()}`)), 20_000);
    child.once('exit', () => clearTimeout(timer));
    child.stdout?.on('data', () => {
      const match = /listening (\d+)/.exec(output());
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${output()}`)));
  });
}

/** Resolves once `port` accepts a connection (workerd prints nothing when it listens). */
async function accepting(child: ChildProcess, port: number, output: () => string): Promise<void> {
  // No HTTP request: it would count against the app's rate limit and change the answers compared.
  const connects = () =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  for (let attempt = 0; attempt < 400; attempt++) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${output()}`);
    if (await connects()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not listening on ${port} after 20 s:\n${output()}`);
}

/** Starts `runtime` serving the bundle in `dir` (see {@link bundleWorker}) on a loopback port. */
export async function startRuntime(
  runtime: RuntimeName,
  binary: string,
  dir: string,
): Promise<RunningRuntime> {
  const port = runtime === 'workerd' ? await freePort() : 0;
  const args =
    runtime === 'bun'
      ? ['run', 'bun-serve.js']
      : runtime === 'deno'
        ? ['run', '--allow-net=127.0.0.1', '--no-prompt', '--no-config', 'deno-serve.js']
        : ['serve', 'workerd.capnp', `--socket-addr=http=127.0.0.1:${port}`];
  const child = spawn(binary, args, {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: dir, DENO_DIR: join(dir, '.deno'), NO_COLOR: '1' },
  });
  let text = '';
  const output = () => text;
  child.stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const stop = stopper(child);
  try {
    if (runtime === 'workerd') {
      await accepting(child, port, output);
      return { origin: `http://127.0.0.1:${port}`, output, stop };
    }
    return { origin: `http://127.0.0.1:${await announcedPort(child, output)}`, output, stop };
  } catch (error) {
    await stop();
    throw new Error(`${runtime} did not start: ${(error as Error).message}`);
  }
}

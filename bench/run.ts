/**
 * `npm run bench`: load on loopback only, bounded in time. Runs autocannon against the reference
 * app and against a bare node:http server that returns the same bytes, then prints requests/s, p99
 * latency and the ratio full stack / bare for each path.
 *
 * BENCH_SECONDS (default 5) bounds each run, BENCH_ROUNDS (default 2) alternating runs per server
 * (the best counts); BENCH_CONNECTIONS (default 50) sets the concurrency.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { build } from 'esbuild';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PATHS = ['/books?author=Italo%20Calvino', '/books/7'];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DYNAMIC_HEADERS = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * The reference app as it would run in production: bundled once with esbuild (the package's source
 * through the tsconfig paths, dependencies external), then run by plain node, without tsx's loader.
 */
async function bundleApp(): Promise<string> {
  const outfile = join('node_modules', '.cache', 'rest-conventions-bench', 'app.mjs');
  await build({
    entryPoints: ['examples/reference-app/main.ts'],
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

async function start(
  script: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number }> {
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, script], {
    env: { ...process.env, ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  for await (const chunk of child.stdout!) {
    output += String(chunk);
    const match = /(?:listening|localhost:)\D*(\d+)/.exec(output);
    if (match) return { child, port: Number(match[1]) };
  }
  throw new Error(`${script} exited before listening`);
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  if (child.exitCode === null) await once(child, 'exit');
}

async function load(port: number, path: string): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    connections,
    duration: seconds,
    pipelining: 1,
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

function best<T extends { rps: number }>(runs: T[]): T {
  return runs.reduce((a, b) => (b.rps > a.rps ? b : a));
}

async function capture(port: number, path: string) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!DYNAMIC_HEADERS.has(name)) headers[name] = value;
  });
  return { status: response.status, headers, body: await response.text() };
}

// The limiter stays on (its cost is part of the stack), with a quota the load never reaches.
const app = await start(await bundleApp(), {
  AUTH_SECRET: 'bench-secret-bench-secret-bench-secret!',
  RATE_LIMIT_MAX: '1000000000',
});
const canned: Record<string, unknown> = {};
for (const path of PATHS) canned[path] = await capture(app.port, path);

const rows: string[] = [];
try {
  const bare = await start('bench/bare-server.ts', { BENCH_CANNED: JSON.stringify(canned) });
  try {
    for (const path of PATHS) {
      await load(app.port, path); // warm-up run (JIT), discarded
      // Alternate the two servers and keep each one's best run, so a burst of other load on the
      // machine does not decide the ratio.
      const fulls = [];
      const bares = [];
      for (let round = 0; round < ROUNDS; round++) {
        fulls.push(await load(app.port, path));
        bares.push(await load(bare.port, path));
      }
      const full = best(fulls);
      const baseline = best(bares);
      rows.push(
        [
          path.padEnd(32),
          `full ${full.rps.toFixed(0).padStart(7)} req/s p99 ${String(full.p99).padStart(3)} ms`,
          `bare ${baseline.rps.toFixed(0).padStart(7)} req/s p99 ${String(baseline.p99).padStart(3)} ms`,
          `ratio ${(full.rps / baseline.rps).toFixed(2)}`,
          full.errors + baseline.errors > 0 ? `(errors: ${full.errors + baseline.errors})` : '',
        ].join('  '),
      );
    }
  } finally {
    await stop(bare.child);
  }
} finally {
  await stop(app.child);
}
process.stdout.write(
  `autocannon, ${connections} connections, ${seconds} s per run, loopback\n${rows.join('\n')}\n`,
);

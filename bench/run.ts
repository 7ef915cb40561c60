/**
 * `npm run bench`: load on loopback only, bounded in time. Runs autocannon against the reference
 * app and against a bare node:http server that returns the same bytes, then prints requests/s, p99
 * latency and the ratio full stack / bare for each path; on Linux also each server's CPU time per
 * request (the least of its runs) and their ratio, which other load on the machine disturbs less.
 *
 * BENCH_SECONDS (default 5) bounds each run, BENCH_ROUNDS (default 2) alternating runs per server
 * (the best counts); BENCH_CONNECTIONS (default 50) sets the concurrency.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { bundleApp } from './bundle-app.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PATHS = ['/books?author=Italo%20Calvino', '/books/7'];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DYNAMIC_HEADERS = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding']);

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

/**
 * CPU time (user + system) a process has used, in microseconds, from Linux's /proc (USER_HZ is 100
 * on every Linux architecture node runs on); `undefined` elsewhere.
 */
function cpuMicros(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

interface Run {
  readonly rps: number;
  readonly p99: number;
  readonly errors: number;
  /** The server's CPU time per request: steadier than req/s on a shared machine. */
  readonly cpuPerRequest: number | undefined;
}

async function load(server: ChildProcess, port: number, path: string): Promise<Run> {
  const before = cpuMicros(server.pid);
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    connections,
    duration: seconds,
    pipelining: 1,
  });
  const after = cpuMicros(server.pid);
  const cpu = before === undefined || after === undefined ? undefined : after - before;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpuPerRequest: cpu === undefined || result.requests.total === 0 ? undefined : cpu / result.requests.total,
  };
}

function best(runs: Run[]): Run {
  return runs.reduce((a, b) => (b.rps > a.rps ? b : a));
}

/** The least CPU per request among the runs (the run least disturbed by other load). */
function leastCpu(runs: Run[]): number | undefined {
  const values = runs.map((run) => run.cpuPerRequest).filter((v): v is number => v !== undefined);
  return values.length === 0 ? undefined : Math.min(...values);
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

/** One server's best run and least CPU per request, as a report line. */
function line(name: string, runs: Run[]): string {
  const run = best(runs);
  const cpu = leastCpu(runs);
  return [
    `  ${name.padEnd(10)}`,
    `${run.rps.toFixed(0).padStart(7)} req/s`,
    `p99 ${String(run.p99).padStart(3)} ms`,
    cpu === undefined ? '' : `cpu ${cpu.toFixed(0).padStart(4)} us/req`,
    run.errors > 0 ? `(errors: ${run.errors})` : '',
  ].join('  ');
}

function ratio(name: string, runs: Run[], bares: Run[]): string {
  const cpu = leastCpu(runs);
  const bareCpu = leastCpu(bares);
  const cpuRatio = cpu === undefined || bareCpu === undefined ? '' : ` (cpu ${(bareCpu / cpu).toFixed(2)})`;
  return `${name} ${(best(runs).rps / best(bares).rps).toFixed(2)}${cpuRatio}`;
}

const rows: string[] = [];
try {
  const bare = await start('bench/bare-server.ts', { BENCH_CANNED: JSON.stringify(canned) });
  // The same bare server serializing the document on every request: the cost of JSON alone, which
  // any server that builds its responses pays and the canned baseline does not.
  const serializing = await start('bench/bare-server.ts', {
    BENCH_CANNED: JSON.stringify(canned),
    BENCH_SERIALIZE: '1',
  });
  try {
    for (const path of PATHS) {
      const servers = [app, bare, serializing];
      for (const server of servers) await load(server.child, server.port, path); // warm-up (JIT)
      // Alternate the servers and keep each one's best run, so a burst of other load on the machine
      // does not decide the ratio.
      const runs: Run[][] = servers.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, server] of servers.entries())
          runs[i]!.push(await load(server.child, server.port, path));
      }
      const [fulls, bares, serialized] = runs as [Run[], Run[], Run[]];
      rows.push(
        path,
        line('full', fulls),
        line('bare', bares),
        line('bare+JSON', serialized),
        `  ratio: ${ratio('full/bare', fulls, bares)}; ${ratio('bare+JSON/bare', serialized, bares)}`,
      );
    }
  } finally {
    await stop(serializing.child);
    await stop(bare.child);
  }
} finally {
  await stop(app.child);
}
process.stdout.write(
  `autocannon, ${connections} connections, ${seconds} s per run, loopback\n${rows.join('\n')}\n`,
);

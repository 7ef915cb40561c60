/**
 * `npm run bench`: the reference app against Fastify, Hono and Express with their own plugins
 * (`bench/peers/`) and against the bare and bare+JSON floors, on loopback only, bounded in time;
 * and on Bun and Deno (`bench/runtime-servers.ts`), the app through `toFetchHandler` against Hono
 * and a bare floor on the same runtime (`app@bun`, `hono@bun`, `bare@bun`, the same `@deno`).
 * For each case the servers take turns (A B C A B C ...) for BENCH_ROUNDS rounds; each server keeps
 * the median of its rounds. Results go to `bench/results.json` and the chart to
 * `docs/benchmarks.svg`; method and figures in `docs/benchmarks.md`.
 *
 * Knobs: BENCH_SECONDS (3) per run, BENCH_ROUNDS (3), BENCH_WARMUP_SECONDS (1) per server and case,
 * BENCH_CONNECTIONS (50); BENCH_CASES and BENCH_SERVERS: comma-separated names to run only those
 * (BENCH_SERVERS may also name `fastify+rc`, `hono+rc`, `express+rc`: each framework with
 * `rest-conventions/<framework>` instead of its own plugins, `bench/adapters/`; `app+pg`: the
 * reference app on PostgreSQL at DATABASE_URL under a fresh STORE_PREFIX, dropped at the end; and
 * `app+redis`: the reference app with its idempotency records in Redis at REDIS_URL under a fresh
 * STORE_PREFIX, deleted at the end; and the keyed-write comparison of `bench/keyed-peers.ts`:
 * `app+cluster` and the peers with an idempotency library, e.g. `BENCH_CASES=order-post-idempotent`).
 * A run merges its rows into `bench/results.json`, keeping the rows it did not run.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { request as undiciRequest } from 'undici';
import { dropTablesUnder } from '../test/support/postgres.js';
import { type RedisCluster, startRedisCluster } from '../test/support/redis-cluster.js';
import { runtimeBinary } from '../test/support/runtimes.js';
import { REDIS_URL } from '../test/support/services.js';
import {
  CASES,
  type Case,
  cannedKey,
  type Fixture,
  ORDER_BODY,
  oneRequestHeaders,
  SERVER_ENV,
  signTokens,
} from './cases.js';
import { nodeRows, runtimeRows, type ServerFigures } from './doc-tables.js';
import {
  CLUSTER_APP,
  CLUSTER_APP_NO_WAIT,
  deleteExpressPeerKeys,
  isClusterApp,
  KEYED_PEERS,
  type KeyedPeerName,
  keyedPeer,
  keyedPeerEnv,
  onCluster,
  withoutMemoryBudgets,
} from './keyed-peers.js';
import { loadCase } from './load.js';
import { redisCpuMicros } from './redis-cpu.js';
import { deleteRedisKeysUnder } from './redis-keys.js';
import {
  OTHER_RUNTIMES,
  RUNTIME_COLOURS,
  RUNTIME_SERVERS,
  RUNTIME_TITLES,
  type RuntimeServerName,
  referencesOf,
  runtimeEntry,
  runtimeServer,
} from './runtime-servers.js';
import {
  bundle,
  bundleForRuntime,
  hasRuntime,
  pinLoadGenerator,
  pinning,
  type Server,
  start,
  stop,
} from './servers.js';
import { barChart } from './svg-chart.js';

const SECONDS = positive('BENCH_SECONDS', 3);
const ROUNDS = positive('BENCH_ROUNDS', 3);
const WARMUP_SECONDS = positive('BENCH_WARMUP_SECONDS', 1);
const CONNECTIONS = positive('BENCH_CONNECTIONS', 50);
const DYNAMIC_HEADERS = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding']);
/** Servers in the order they take turns; `fastify` and `bare` are the references of the ratios. */
const SERVER_NAMES = ['app', 'fastify', 'hono', 'express', 'bare', 'bare+JSON'] as const;
/** Each framework with `rest-conventions/<framework>` (`bench/adapters/`): only when named in BENCH_SERVERS. */
const ADAPTER_NAMES = ['fastify+rc', 'hono+rc', 'express+rc'] as const;
/**
 * The reference app on PostgreSQL (`DATA_STORE=postgres`, `IDEMPOTENCY_STORE=postgres`, DATABASE_URL)
 * under a fresh STORE_PREFIX whose tables are dropped at the end: only when named in BENCH_SERVERS.
 */
const PG_APP = 'app+pg';
/**
 * The reference app with `IDEMPOTENCY_STORE=redis` (REDIS_URL) under a fresh STORE_PREFIX whose
 * keys are deleted at the end; its data stay in memory: only when named in BENCH_SERVERS.
 */
const REDIS_APP = 'app+redis';
type ServerName =
  | (typeof SERVER_NAMES)[number]
  | (typeof ADAPTER_NAMES)[number]
  | typeof PG_APP
  | typeof REDIS_APP
  | typeof CLUSTER_APP
  | typeof CLUSTER_APP_NO_WAIT
  | KeyedPeerName
  | RuntimeServerName;

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1 || value > 600)
    throw new TypeError(`${name} must be an integer from 1 to 600`);
  return value;
}

function only<T extends string>(name: string, all: readonly T[], defaults: readonly T[] = all): T[] {
  const wanted = process.env[name]?.split(',').map((s) => s.trim());
  if (wanted === undefined) return [...defaults];
  const unknown = wanted.filter((w) => !all.includes(w as T));
  if (unknown.length > 0)
    throw new TypeError(`${name}: unknown ${unknown.join(', ')} (known: ${all.join(', ')})`);
  return all.filter((a) => wanted.includes(a));
}

const cases = only(
  'BENCH_CASES',
  CASES.map((c) => c.name),
).map((name) => CASES.find((c) => c.name === name)!);
const serverNames = only<ServerName>(
  'BENCH_SERVERS',
  [
    ...SERVER_NAMES,
    ...ADAPTER_NAMES,
    PG_APP,
    REDIS_APP,
    CLUSTER_APP,
    CLUSTER_APP_NO_WAIT,
    ...(Object.keys(KEYED_PEERS) as KeyedPeerName[]),
    ...RUNTIME_SERVERS,
  ],
  // Bun and Deno come from per-platform npm packages: on another platform their servers are left out.
  [...SERVER_NAMES, ...RUNTIME_SERVERS.filter((name) => hasRuntime(runtimeServer(name)!.runtime))],
);

/** CPU time (user + system) of a process in microseconds, from Linux's /proc; `undefined` elsewhere. */
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
  readonly p50: number;
  readonly p99: number;
  /** Answers with another status than the case's, plus socket errors and timeouts. */
  readonly unexpected: number;
  /** Those answers by status (`"429": 12`), and `errors` and `timeouts`. */
  readonly unexpectedBy: Readonly<Record<string, number>>;
  readonly cpuPerRequest: number | undefined;
  /** CPU of the load generator (this process) per request, microseconds. */
  readonly loaderCpuPerRequest: number;
  /** CPU of the Redis servers the server uses per request, microseconds; absent without Redis. */
  readonly redisCpuPerRequest?: number;
}

async function load(server: Server, c: Case, fixture: Fixture, seconds: number): Promise<Run> {
  const redisUrls = redisOf(server.name);
  const redisBefore = redisUrls.length === 0 ? 0 : await redisCpuMicros(redisUrls);
  const loaderBefore = process.cpuUsage();
  const before = cpuMicros(server.child.pid);
  const { result, statuses } = await loadCase(c, fixture, {
    url: `http://127.0.0.1:${server.port}`,
    connections: CONNECTIONS,
    duration: seconds,
  });
  const after = cpuMicros(server.child.pid);
  const loader = process.cpuUsage(loaderBefore);
  const redisCpu = redisUrls.length === 0 ? undefined : (await redisCpuMicros(redisUrls)) - redisBefore;
  const expected = statuses[String(c.status)] ?? 0;
  const total = result.requests.total;
  const unexpectedBy: Record<string, number> = {};
  for (const [status, count] of Object.entries(statuses))
    if (status !== String(c.status) && count > 0) unexpectedBy[status] = count;
  if (result.errors > 0) unexpectedBy.errors = result.errors;
  if (result.timeouts > 0) unexpectedBy.timeouts = result.timeouts;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    unexpected: total - expected + result.errors + result.timeouts,
    unexpectedBy,
    cpuPerRequest:
      before === undefined || after === undefined || total === 0 ? undefined : (after - before) / total,
    loaderCpuPerRequest: (loader.user + loader.system) / Math.max(1, total),
    ...(redisCpu === undefined ? {} : { redisCpuPerRequest: redisCpu / Math.max(1, total) }),
  };
}

/**
 * One request as the load generator sends it (undici's `request`, not `fetch`: fetch adds
 * `Cache-Control: no-cache` to a conditional request, RFC 9111 section 5.2.1.4).
 */
async function request(port: number, c: Case, fixture: Fixture) {
  const response = await undiciRequest(`http://127.0.0.1:${port}${c.path(fixture)}`, {
    method: c.method,
    headers: oneRequestHeaders(c, fixture),
    ...(c.body === undefined ? {} : { body: c.body }),
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return { status: response.statusCode, headers, body: await response.body.text() };
}

/** Creates the order the item cases read and reads the server's own ETag for `/books/7`. */
async function fixtureOf(port: number, { token, writers }: Tokens): Promise<Fixture> {
  const created = await fetch(`http://127.0.0.1:${port}/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' },
    body: ORDER_BODY,
  });
  const document = (await created.json()) as { data?: { id?: string } };
  const book = await fetch(`http://127.0.0.1:${port}/books/7`);
  await book.arrayBuffer();
  const orderId = document.data?.id;
  const bookEtag = book.headers.get('etag');
  if (created.status !== 201 || orderId === undefined || bookEtag === null) {
    throw new Error(`port ${port}: could not create an order (${created.status}) or read an ETag`);
  }
  return { token, writers, orderId, bookEtag };
}

/** The app's answer to every case, for the floors to send back. */
async function captureCanned(port: number, fixture: Fixture) {
  const canned: Record<string, { status: number; headers: Record<string, string>; body: string }> = {};
  for (const c of CASES) {
    const answer = await request(port, c, fixture);
    const headers: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!DYNAMIC_HEADERS.has(name)) headers[name] = value;
    });
    canned[cannedKey(c.method, c.path(fixture), 'if-none-match' in c.headers(fixture))] = {
      status: answer.status,
      headers,
      body: answer.body,
    };
  }
  return canned;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

interface Summary {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly cpuPerRequest: number | undefined;
  /** The load generator's and Redis' CPU per request, in the run with the least server CPU. */
  readonly loaderCpuPerRequest: number;
  readonly redisCpuPerRequest?: number;
  readonly unexpected: number;
  readonly runs: readonly Run[];
}

function summarize(runs: Run[]): Summary {
  // The CPU figures of the run with the least server CPU per request: the one least disturbed by
  // other load on the machine.
  const quietest = runs.reduce((a, b) =>
    (b.cpuPerRequest ?? Number.POSITIVE_INFINITY) < (a.cpuPerRequest ?? Number.POSITIVE_INFINITY) ? b : a,
  );
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    cpuPerRequest: quietest.cpuPerRequest,
    loaderCpuPerRequest: quietest.loaderCpuPerRequest,
    ...(quietest.redisCpuPerRequest === undefined ? {} : { redisCpuPerRequest: quietest.redisCpuPerRequest }),
    unexpected: runs.reduce((sum, r) => sum + r.unexpected, 0),
    runs,
  };
}

/** Requests/s as a ratio (higher is better); latencies and CPU as ratios too (lower is better). */
function ratios(s: Summary, reference: Summary | undefined) {
  if (reference === undefined) return undefined;
  const r = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined || b === 0 ? null : Number((a / b).toFixed(3));
  return {
    rps: r(s.rps, reference.rps),
    p50: r(s.p50, reference.p50),
    p99: r(s.p99, reference.p99),
    cpuPerRequest: r(s.cpuPerRequest, reference.cpuPerRequest),
  };
}

type Ratio = { readonly rps: number | null };

/** The versions of Bun and Deno the run used, as their binaries report them. */
function runtimeVersions(): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const runtime of OTHER_RUNTIMES) {
    const binary = runtimeBinary(runtime);
    if (binary !== undefined && serverNames.some((name) => runtimeServer(name)?.runtime === runtime))
      versions[runtime] = execFileSync(binary, ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
  }
  return versions;
}

/** `429: 12, errors: 3` over all rounds. */
function unexpectedSummary(runs: readonly Run[]): string {
  const total: Record<string, number> = {};
  for (const run of runs)
    for (const [what, count] of Object.entries(run.unexpectedBy)) total[what] = (total[what] ?? 0) + count;
  return Object.entries(total)
    .map(([what, count]) => `${what}: ${count}`)
    .join(', ');
}

// Counted before pinning: affinity to one core makes availableParallelism() say 1.
const CORES = os.availableParallelism();
pinLoadGenerator();
const perCase = serverNames.length * (WARMUP_SECONDS + ROUNDS * SECONDS);
process.stdout.write(
  `${cases.length} cases x ${serverNames.length} servers, ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections: ` +
    `about ${Math.ceil((cases.length * perCase) / 60)} min${pinning ? '; servers on core 1, load on core 0' : '; not pinned'}\n`,
);

type Tokens = Awaited<ReturnType<typeof signTokens>>;
const tokens = await signTokens();
const env = SERVER_ENV;
const pgPrefix = `bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const redisPrefix = `bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const servers = new Map<ServerName, Server>();
let cluster: RedisCluster | undefined;
/** The Redis servers a benchmarked server uses: REDIS_URL, the cluster's nodes, or none. */
function redisOf(name: string): string[] {
  if (onCluster(name)) return (cluster?.nodes ?? []).map((n) => `redis://${n.host}:${n.port}`);
  return name === REDIS_APP || keyedPeer(name)?.store === 'redis' ? [REDIS_URL] : [];
}
const fixtures = new Map<ServerName, Fixture>();
const results: Record<string, { title: string; servers: Record<string, unknown>; measured?: unknown }> = {};
/** Cases and servers with unexpected answers: printed at the end, and the run exits 1. */
const failures: string[] = [];
try {
  // The app always starts: the floors answer with its captured bytes.
  const app = await start('app', await bundle('examples/reference-app/main.ts', 'app'), env);
  servers.set('app', app);
  fixtures.set('app', await fixtureOf(app.port, tokens));
  const canned = JSON.stringify(await captureCanned(app.port, fixtures.get('app')!));
  if (serverNames.some(onCluster)) cluster = await startRedisCluster();
  const clusterNodes = cluster?.nodesSetting ?? '';
  for (const name of serverNames) {
    if (name === 'app') continue;
    if (name === PG_APP || name === REDIS_APP || isClusterApp(name)) {
      const storeEnv: Record<string, string> =
        name === PG_APP
          ? { DATA_STORE: 'postgres', IDEMPOTENCY_STORE: 'postgres', STORE_PREFIX: pgPrefix }
          : { IDEMPOTENCY_STORE: 'redis', STORE_PREFIX: redisPrefix };
      if (isClusterApp(name)) storeEnv.REDIS_CLUSTER_NODES = clusterNodes;
      if (name === CLUSTER_APP_NO_WAIT) storeEnv.REDIS_WAIT_REPLICAS = '0';
      const server = await start(name, await bundle('examples/reference-app/main.ts', 'app'), {
        ...withoutMemoryBudgets(env),
        ...storeEnv,
      });
      servers.set(name, server);
      fixtures.set(name, await fixtureOf(server.port, tokens));
      continue;
    }
    const onRuntime = runtimeServer(name);
    if (onRuntime !== undefined) {
      const { kind, runtime } = onRuntime;
      const server = await start(
        name,
        await bundleForRuntime(runtimeEntry(kind), name),
        kind === 'bare' ? { ...env, BENCH_CANNED: canned } : env,
        { runtime },
      );
      servers.set(name, server);
      fixtures.set(name, kind === 'bare' ? fixtures.get('app')! : await fixtureOf(server.port, tokens));
      continue;
    }
    const floor = name === 'bare' || name === 'bare+JSON';
    const peer = keyedPeer(name);
    const script = floor
      ? await bundle('bench/bare-server.ts', 'bare')
      : name.endsWith('+rc')
        ? await bundle(`bench/adapters/${name.slice(0, -3)}.ts`, name)
        : peer !== undefined
          ? await bundle(`bench/peers/${peer.peer}.ts`, peer.peer)
          : await bundle(`bench/peers/${name}.ts`, name);
    const keyed = peer === undefined ? undefined : (name as KeyedPeerName);
    const server = await start(name, script, {
      ...env,
      ...(floor ? { BENCH_CANNED: canned, BENCH_SERIALIZE: name === 'bare+JSON' ? '1' : '0' } : {}),
      ...(keyed === undefined ? {} : keyedPeerEnv(keyed, redisPrefix, clusterNodes)),
    });
    servers.set(name, server);
    fixtures.set(name, floor ? fixtures.get('app')! : await fixtureOf(server.port, tokens));
  }

  // The comparison with the idempotency libraries is a row of its own, next to the case's.
  const libraries = serverNames.some((n) => keyedPeer(n) !== undefined || onCluster(n));
  for (const c of cases) {
    // Every server must answer the case as expected before it is measured.
    for (const name of serverNames) {
      const answer = await request(servers.get(name)!.port, c, fixtures.get(name)!);
      if (answer.status !== c.status)
        throw new Error(`${name} answers ${c.title} with ${answer.status}: ${answer.body}`);
    }
    for (const name of serverNames) {
      const warmUp = await load(servers.get(name)!, c, fixtures.get(name)!, WARMUP_SECONDS);
      if (warmUp.unexpected > 0)
        failures.push(`${c.name} on ${name}, warm-up: ${unexpectedSummary([warmUp])}`);
    }
    const runs = new Map<ServerName, Run[]>(serverNames.map((n) => [n, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of serverNames)
        runs.get(name)!.push(await load(servers.get(name)!, c, fixtures.get(name)!, SECONDS));
    }
    const summaries = new Map([...runs].map(([name, r]) => [name, summarize(r)]));
    const row: Record<string, unknown> = {};
    const lines = [c.title];
    for (const [name, s] of summaries) {
      // Against Fastify on Node, against Hono on Bun and Deno; and the floor of the same runtime.
      const references = referencesOf(name);
      const vsPeer = ratios(s, summaries.get(references.peer as ServerName));
      const vsBare = ratios(s, summaries.get(references.bare as ServerName));
      const onNode = runtimeServer(name) === undefined;
      row[name] = { ...s, ...(onNode ? { vsFastify: vsPeer } : { vsHono: vsPeer }), vsBare };
      lines.push(
        [
          `  ${name.padEnd(10)}`,
          `${s.rps.toFixed(0).padStart(7)} req/s`,
          `p50 ${String(s.p50).padStart(5)} ms`,
          `p99 ${String(s.p99).padStart(5)} ms`,
          s.cpuPerRequest === undefined ? '' : `cpu ${s.cpuPerRequest.toFixed(0).padStart(4)} us/req`,
          `load ${s.loaderCpuPerRequest.toFixed(0).padStart(4)}`,
          s.redisCpuPerRequest === undefined ? '' : `redis ${s.redisCpuPerRequest.toFixed(0).padStart(4)}`,
          vsPeer?.rps == null ? '' : `x ${references.peer} ${vsPeer.rps.toFixed(2)}`,
          vsBare?.rps == null ? '' : `x bare ${vsBare.rps.toFixed(2)}`,
          s.unexpected > 0 ? `(unexpected answers: ${s.unexpected})` : '',
        ].join('  '),
      );
      if (s.unexpected > 0) failures.push(`${c.name} on ${name}: ${unexpectedSummary(s.runs)}`);
    }
    results[libraries ? `${c.name}+libraries` : c.name] = {
      title: libraries ? `${c.title}: idempotency libraries` : c.title,
      servers: row,
      // Rows of other runs are kept in the file: each row says when and how it was measured.
      measured: {
        date: new Date().toISOString(),
        loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
        rounds: ROUNDS,
        seconds: SECONDS,
      },
    };
    process.stdout.write(`${lines.join('\n')}\n`);
  }
} finally {
  for (const server of servers.values()) await stop(server);
  if (serverNames.includes(PG_APP)) await dropTablesUnder(pgPrefix);
  await cluster?.stop();
  if (serverNames.some((n) => n === REDIS_APP || keyedPeer(n) !== undefined))
    await deleteRedisKeysUnder(redisPrefix);
  if (serverNames.some((n) => keyedPeer(n)?.peer === 'express')) await deleteExpressPeerKeys();
}

// Rows of cases and servers this run did not measure are kept from the previous results.
const previous = JSON.parse(readFileSync('bench/results.json', 'utf8')) as { cases?: typeof results };
for (const [name, row] of Object.entries(results)) {
  results[name] = { ...row, servers: { ...previous.cases?.[name]?.servers, ...row.servers } };
}
for (const [name, row] of Object.entries(previous.cases ?? {})) results[name] ??= row;
writeFileSync(
  'bench/results.json',
  `${JSON.stringify(
    {
      note: 'Requests/s are medians of the rounds; vsFastify, vsHono and vsBare are ratios (rps: higher is better; p50, p99, cpuPerRequest: lower is better): on Node against fastify and bare, on Bun and Deno against hono and bare on the same runtime.',
      date: new Date().toISOString(),
      node: process.version,
      runtimes: runtimeVersions(),
      cpus: CORES,
      loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
      pinned: pinning !== undefined,
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: ROUNDS,
      cases: results,
    },
    null,
    2,
  )}\n`,
);

const COLOURS: Record<string, string> = {
  app: '#2b6cb0',
  fastify: '#444',
  hono: '#e36002',
  express: '#8a8a8a',
  bare: '#c6d8ee',
  'bare+JSON': '#9fbce0',
  'fastify+rc': '#777',
  'hono+rc': '#f59a4c',
  'express+rc': '#b5b5b5',
  'app+pg': '#1a4472',
  'app+redis': '#4a7fc0',
  'app+cluster': '#6b9bd6',
  'app+cluster-nowait': '#8fb3e0',
  'fastify+node-idempotency': '#555',
  'fastify+node-idempotency+redis': '#666',
  'express+express-idempotency': '#999',
  'express+express-idempotency+redis': '#aaa',
  'express+express-idempotency+cluster': '#bbb',
  ...RUNTIME_COLOURS,
};
/** `x1.07 Fastify` on Node, `x1.63 Hono on Bun` elsewhere: each server against its runtime's peer. */
function chartNote(name: string, s: Summary & { vsFastify?: Ratio; vsHono?: Ratio }): string | undefined {
  const onRuntime = runtimeServer(name);
  if (onRuntime === undefined)
    return s.vsFastify?.rps == null || name === 'fastify'
      ? undefined
      : `x${s.vsFastify.rps.toFixed(2)} Fastify`;
  if (s.vsHono?.rps == null || onRuntime.kind === 'hono') return undefined;
  return `x${s.vsHono.rps.toFixed(2)} Hono on ${RUNTIME_TITLES[onRuntime.runtime]}`;
}
writeFileSync(
  'docs/benchmarks.svg',
  barChart(
    Object.values(results).map(({ title, servers: row }) => ({
      label: title,
      bars: Object.entries(row as Record<string, Summary & { vsFastify?: Ratio; vsHono?: Ratio }>).map(
        ([name, s]) => {
          const note = chartNote(name, s);
          return { label: name, value: s.rps, ...(note === undefined ? {} : { note }) };
        },
      ),
    })),
    {
      title: `Requests/s, median of ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections (${CORES} cores, load average ${os.loadavg()[0]!.toFixed(0)})`,
      unit: 'req/s',
      colours: COLOURS,
    },
  ),
);
process.stdout.write('wrote bench/results.json and docs/benchmarks.svg\n');
// The rows of docs/benchmarks.md's tables, as test/bench/benchmarks-tables.test.ts expects them.
const written = {
  cases: Object.fromEntries(
    Object.entries(results).map(([name, { servers: row }]) => [
      name,
      { servers: row as Record<string, ServerFigures> },
    ]),
  ),
};
process.stdout.write(
  `\ndocs/benchmarks.md, "## Results":\n${nodeRows(written).join('\n')}\n` +
    `docs/benchmarks.md, "### On Bun and Deno":\n${runtimeRows(written).join('\n')}\n`,
);
if (failures.length > 0) {
  process.stderr.write(
    `UNEXPECTED ANSWERS (the figures of these rows are not the cost of the case):\n  ${failures.join('\n  ')}\n`,
  );
  process.exitCode = 1;
}

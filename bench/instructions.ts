/**
 * `npm run bench:instructions`: instructions per request, counted by valgrind's callgrind, which
 * other load on the machine does not disturb (unlike requests/s). Each server runs under
 * `valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes`; after BENCH_CG_WARMUP
 * requests (default 5,000, for the JIT) instrumentation is switched on with `callgrind_control`,
 * BENCH_CG_REQUESTS requests (default 3,000) are sent at 50 connections, the counts are dumped,
 * and the user-space instructions of all the process's threads (main, GC, compiler) are summed
 * and divided by the requests. Needs valgrind; Linux only.
 *
 * Cases: `book` (GET /books/7) on the app and on bare+JSON, `order` (GET /orders/{id} as owner) on
 * the app; BENCH_CG_CASES=book,order and BENCH_CG_SERVERS=app,bare+JSON select. BENCH_CG_SERVERS may
 * also name the peers (`fastify`, `hono`, `express`) and the same frameworks with
 * `rest-conventions/<framework>` (`fastify+rc`, `hono+rc`, `express+rc`): the adapter-overhead pairs,
 * `app+redis`: the app with its idempotency records in Redis at REDIS_URL under a fresh
 * STORE_PREFIX (as in `npm run bench`), whose keys are deleted afterwards; and the peers with an
 * idempotency library (`fastify+node-idempotency`, `...+redis`, `express+express-idempotency`,
 * `...+redis`, bench/keyed-peers.ts), e.g. `BENCH_CG_CASES=order-post-idempotent`; and the servers on
 * Bun and Deno (`app@bun`, `hono@bun`, `bare@bun`, the same `@deno`; bench/runtime-servers.ts), the
 * runtime under callgrind as node is (JIT code and all; compare them with each other, not with node).
 *
 * The app's telemetry (docs/observability.md): `app` wires none (no `OTEL_*` variable: the API is
 * never called), `app+otel-api` wires it with the SDK disabled (`OTEL_SDK_DISABLED=true`: the API's
 * no-op tracer and meter), `app+otel-sdk` with the SDK registered and exporters that drop what they
 * get (bench/app-with-sdk.ts): spans and metrics recorded, sent nowhere.
 *
 * BENCH_CG_REDIS=1: a server on Redis gets a private `redis-server` on a free loopback port, itself
 * under callgrind, and Redis' instructions over the same requests are printed beside the server's
 * (what each keyed write costs Redis, which shares the machine). Without it only the server is counted.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, redisServers } from '../test/support/redis-servers.js';
import { REDIS_URL } from '../test/support/services.js';
import { CASES, type Case, cannedKey, type Fixture, ORDER_BODY, SERVER_ENV, signTokens } from './cases.js';
import {
  deleteExpressPeerKeys,
  type KeyedPeerName,
  keyedPeer,
  keyedPeerEnv,
  withoutMemoryBudgets,
} from './keyed-peers.js';
import { loadCase } from './load.js';
import { deleteRedisKeysUnder } from './redis-keys.js';
import { RUNTIME_SERVERS, runtimeEntry, runtimeServer } from './runtime-servers.js';
import { bundle, bundleForRuntime, type OtherRuntime, type Server, start, stop } from './servers.js';

const WARMUP = Number(process.env.BENCH_CG_WARMUP ?? 5_000);
const REQUESTS = Number(process.env.BENCH_CG_REQUESTS ?? 3_000);
for (const [name, value] of [
  ['BENCH_CG_WARMUP', WARMUP],
  ['BENCH_CG_REQUESTS', REQUESTS],
] as const) {
  if (!Number.isInteger(value) || value < 100 || value > 1_000_000) {
    throw new TypeError(`${name} must be an integer from 100 to 1000000`);
  }
}
/**
 * BENCH_CG_CONNECTIONS (default 50, as the bench): 1 sends one request at a time, so that how many
 * requests a server takes per turn of its event loop, which depends on valgrind's pace, does not move
 * the count: the steadiest figure for comparing two versions of the code (about 1% apart between
 * runs, against 5% at 50).
 */
const CONNECTIONS = Number(process.env.BENCH_CG_CONNECTIONS ?? 50);
if (!Number.isInteger(CONNECTIONS) || CONNECTIONS < 1 || CONNECTIONS > 1_000)
  throw new TypeError('BENCH_CG_CONNECTIONS must be an integer from 1 to 1000');
/**
 * On Bun, JavaScriptCore compiles and collects on threads of their own by default, racing the main
 * thread: counts then varied by 10% (main thread) to 25% (all threads) between runs. Counted with
 * both on the main thread instead, a run repeats within 1% on a quiet machine, the compiler's and
 * collector's work included in the count. Other load still moves it (up to 5% seen): the collector's
 * timers follow the clock, so compare versions in alternated runs.
 */
const STEADY_BUN = { BUN_JSC_useConcurrentJIT: 'false', BUN_JSC_useConcurrentGC: 'false' };
const caseNames = (process.env.BENCH_CG_CASES ?? 'book,order').split(',');
const serverNames = (process.env.BENCH_CG_SERVERS ?? 'app,bare+JSON').split(',');
/** BENCH_CG_KEEP=1 keeps the callgrind files for `callgrind_annotate` (their folder is printed). */
const KEEP = process.env.BENCH_CG_KEEP === '1';
/** BENCH_CG_REDIS=1 counts a private Redis' instructions too, for the servers on Redis. */
const COUNT_REDIS = process.env.BENCH_CG_REDIS === '1';
/** The peers (`bench/peers/`) and each framework with `rest-conventions/<framework>` (`bench/adapters/`). */
const PEERS = ['fastify', 'hono', 'express', 'fastify+rc', 'hono+rc', 'express+rc'];
const env = SERVER_ENV;

async function send(server: Server, c: Case, fixture: Fixture, amount: number): Promise<number> {
  const { result, statuses } = await loadCase(c, fixture, {
    url: `http://127.0.0.1:${server.port}`,
    connections: CONNECTIONS,
    amount,
    timeout: 60,
  });
  const expected = statuses[String(c.status)] ?? 0;
  if (expected !== result.requests.total || result.errors > 0 || result.timeouts > 0) {
    const seen = Object.entries(statuses).map(([status, count]) => `${status}: ${count}`);
    throw new Error(
      `${server.name}: ${result.requests.total - expected} unexpected answers (${seen.join(', ')}; errors: ${result.errors}, timeouts: ${result.timeouts})`,
    );
  }
  return result.requests.total;
}

/**
 * Sums the `summary:`/`totals:` lines of the first dump's files (one per thread), and gives the main
 * thread's apart (file `-01`): the JavaScript, without the compiler's and the collector's helper
 * threads, whose share varies most between runs.
 */
function instructions(dir: string): { total: number; main: number } {
  let total = 0;
  let main = 0;
  for (const file of readdirSync(dir).filter((f) => /\.1(-\d+)?$/.test(f))) {
    const match = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
    if (match) total += Number(match[1]);
    if (match && /\.1-01$/.test(file)) main = Number(match[1]);
  }
  return { total, main };
}

/** A `redis-server` of this run's own under callgrind, counted with the server it serves. */
interface CountedRedis {
  readonly url: string;
  readonly pid: string;
  readonly dir: string;
  stop(): Promise<void>;
}

/** Starts a private, empty Redis on a free loopback port under callgrind, counting nothing yet. */
async function countedRedis(): Promise<CountedRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-redis-'));
  const servers = await redisServers('counted-redis');
  const port = await freePort();
  const out = `--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`;
  const child = servers.start(port, [], ['valgrind', '--tool=callgrind', '--instr-atstart=no', out]);
  const stop = async () => {
    // Its counts are dumped (callgrind_control -d) before it is stopped.
    await servers.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Bounded: valgrind takes a few seconds to start Redis.
    await servers.answering(port, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, pid: String(child.pid), dir, stop };
}

async function count(
  name: string,
  script: string,
  extraEnv: Record<string, string>,
  c: Case,
  fixture: (s: Server) => Promise<Fixture>,
  redis?: CountedRedis,
  runtime?: OtherRuntime,
) {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-'));
  // An app on another store than memory refuses the memory store's budgets.
  const base = 'IDEMPOTENCY_STORE' in extraEnv ? withoutMemoryBudgets(env) : env;
  const server = await start(
    name,
    script,
    { ...base, ...(runtime === 'bun' ? STEADY_BUN : {}), ...extraEnv },
    {
      wrapper: [
        'valgrind',
        '--tool=callgrind',
        '--instr-atstart=no',
        '--separate-threads=yes',
        `--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`,
      ],
      ...(runtime === undefined ? {} : { runtime }),
    },
  );
  try {
    const f = await fixture(server);
    await send(server, c, f, WARMUP);
    const pids = [String(server.child.pid), ...(redis === undefined ? [] : [redis.pid])];
    const control = (...args: string[]) => {
      for (const pid of pids) execFileSync('callgrind_control', [...args, pid], { stdio: 'ignore' });
    };
    control('-z');
    control('-i', 'on');
    const sent = await send(server, c, f, REQUESTS);
    control('-d');
    control('-i', 'off');
    const counted = instructions(dir);
    return {
      total: counted.total / sent,
      main: counted.main / sent,
      ...(redis === undefined ? {} : { redis: instructions(redis.dir).total / sent }),
    };
  } finally {
    await stop(server);
    if (KEEP) process.stdout.write(`${name}: callgrind files kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

const { token, writers } = await signTokens();
async function appFixture(server: Server): Promise<Fixture> {
  const created = await fetch(`http://127.0.0.1:${server.port}/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' },
    body: ORDER_BODY,
  });
  const id = ((await created.json()) as { data: { id: string } }).data.id;
  return { token, writers, orderId: id, bookEtag: '' };
}

const appScript = await bundle('examples/reference-app/main.ts', 'app');
const lines: string[] = [];
for (const caseName of caseNames) {
  const c = CASES.find((x) => x.name === caseName);
  if (c === undefined) throw new TypeError(`BENCH_CG_CASES: unknown case ${caseName}`);
  for (const name of serverNames) {
    let perRequest: { total: number; main: number; redis?: number };
    const peer = keyedPeer(name);
    const onRuntime = runtimeServer(name);
    const onRedis = name === 'app+redis' || peer?.store === 'redis';
    if (name === 'app') {
      perRequest = await count('app', appScript, {}, c, appFixture);
    } else if (name === 'app+otel-api') {
      perRequest = await count(name, appScript, { OTEL_SDK_DISABLED: 'true' }, c, appFixture);
    } else if (name === 'app+otel-sdk') {
      const script = await bundle('bench/app-with-sdk.ts', 'app-with-sdk');
      perRequest = await count(name, script, { OTEL_SDK_DISABLED: 'true' }, c, appFixture);
    } else if (onRuntime !== undefined && onRuntime.kind !== 'bare') {
      const script = await bundleForRuntime(runtimeEntry(onRuntime.kind), name);
      perRequest = await count(name, script, {}, c, appFixture, undefined, onRuntime.runtime);
    } else if (onRedis) {
      const prefix = `bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const redis = COUNT_REDIS ? await countedRedis() : undefined;
      const redisUrl = redis?.url ?? REDIS_URL;
      try {
        const [script, serverEnv] =
          peer === undefined
            ? [appScript, { IDEMPOTENCY_STORE: 'redis', STORE_PREFIX: prefix, REDIS_URL: redisUrl }]
            : [
                await bundle(`bench/peers/${peer.peer}.ts`, peer.peer),
                keyedPeerEnv(name as KeyedPeerName, prefix, '', redisUrl),
              ];
        perRequest = await count(name, script, serverEnv, c, appFixture, redis);
      } finally {
        if (redis === undefined) {
          await deleteRedisKeysUnder(prefix);
          if (peer?.peer === 'express') await deleteExpressPeerKeys();
        } else await redis.stop();
      }
    } else if (peer !== undefined) {
      const script = await bundle(`bench/peers/${peer.peer}.ts`, peer.peer);
      perRequest = await count(name, script, keyedPeerEnv(name as KeyedPeerName, 'bench'), c, appFixture);
    } else if (name === 'bare+JSON' || name === 'bare' || onRuntime?.kind === 'bare') {
      // The floor answers with the app's bytes, captured from an app run without valgrind.
      const app = await start('app', appScript, env);
      let canned: string;
      let fixture: Fixture;
      try {
        fixture = await appFixture(app);
        const response = await fetch(`http://127.0.0.1:${app.port}${c.path(fixture)}`, {
          method: c.method,
          headers: c.headers(fixture),
          ...(c.body === undefined ? {} : { body: c.body }),
        });
        const headers: Record<string, string> = {};
        response.headers.forEach((value, key) => {
          if (!['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding'].includes(key))
            headers[key] = value;
        });
        canned = JSON.stringify({
          [cannedKey(c.method, c.path(fixture), false)]: {
            status: response.status,
            headers,
            body: await response.text(),
          },
        });
      } finally {
        await stop(app);
      }
      const bare =
        onRuntime === undefined
          ? await bundle('bench/bare-server.ts', 'bare')
          : await bundleForRuntime(runtimeEntry('bare'), name);
      perRequest = await count(
        name,
        bare,
        { BENCH_CANNED: canned, BENCH_SERIALIZE: name === 'bare+JSON' ? '1' : '0' },
        c,
        async () => fixture,
        undefined,
        onRuntime?.runtime,
      );
    } else if (PEERS.includes(name)) {
      const script = name.endsWith('+rc')
        ? await bundle(`bench/adapters/${name.slice(0, -3)}.ts`, name)
        : await bundle(`bench/peers/${name}.ts`, name);
      perRequest = await count(name, script, {}, c, appFixture);
    } else {
      throw new TypeError(
        `BENCH_CG_SERVERS: unknown server ${name} (app, app+otel-api, app+otel-sdk, app+redis, bare, bare+JSON, ${[...PEERS, ...RUNTIME_SERVERS].join(', ')})`,
      );
    }
    const figure = (n: number) => Math.round(n).toLocaleString('en-US').padStart(9);
    const redisPart = perRequest.redis === undefined ? '' : `, Redis ${figure(perRequest.redis)}`;
    const line = `${c.title.padEnd(36)} ${name.padEnd(10)} ${figure(perRequest.total)} instructions/request (main thread ${figure(perRequest.main)}${redisPart})`;
    lines.push(line);
    process.stdout.write(`${line}\n`);
  }
}

/**
 * `npm run soak`: a mixed workload against the reference app in a child process, on loopback only,
 * bounded in time (SOAK_SECONDS, default 180). Samples the app's RSS and heap (after a collection)
 * and the p99 latency every SOAK_SAMPLE_MS (default 5000), then writes `bench/soak/report.json`
 * (the numbers and the verdict) and `bench/soak/report.svg` (the plot over time). See docs/soak.md.
 *
 * SOAK_RATE (default 200) is the request rate aimed at, in requests per second, shared by
 * SOAK_WORKERS (default 8) keep-alive connections; the workload is drawn from a seeded generator.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { build } from 'esbuild';
import { signHs256Token } from '../../src/auth/index.js';
import { bundleApp } from '../bundle-app.js';
import { soakPlot } from './plot.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_MS ?? 5000);
const RATE = Number(process.env.SOAK_RATE ?? 200);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 8);
/**
 * `mixed` (default): every write with a fresh key makes the app keep a record (and most create an
 * order). `bounded`: the same kinds of request, but keys come from a fixed set of 20 (so after the
 * first round they replay) and the other writes update existing orders: what the app keeps stops
 * growing, so memory that still grows would be a leak.
 */
const MIX = process.env.SOAK_MIX ?? 'mixed';
if (MIX !== 'mixed' && MIX !== 'bounded') throw new TypeError('SOAK_MIX must be mixed or bounded');
const REPORT = MIX === 'mixed' ? 'report' : 'report-bounded';
const KEY_SET = 20;
const SECRET = 'soak-secret-soak-secret-soak-secret!!';
const OUT = join('bench', 'soak');
/** The first fifth of the run is warm-up (JIT, caches, stores filling) and not judged. */
const WARM_UP_SHARE = 0.2;
/**
 * Flat memory: the least-squares trend over the judged windows adds at most this share of the first
 * judged value (or this many MB) over the judged span. Flat p99: the later half's median is within
 * this share (or this many ms) of the earlier half's (a median, because single windows on a shared
 * machine have outliers).
 */
const FLAT = { memoryShare: 0.05, memoryMB: 2, p99Share: 0.5, p99Ms: 3 } as const;

for (const [name, value] of Object.entries({ SECONDS, SAMPLE_MS, RATE, WORKERS })) {
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`SOAK_${name} must be a positive number`);
}

async function bundleSampler(): Promise<string> {
  const outfile = join('node_modules', '.cache', 'rest-conventions-bench', 'soak-sampler.mjs');
  await build({
    entryPoints: [join(OUT, 'sampler.ts')],
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

interface MemorySample {
  readonly at: number;
  readonly rss: number;
  readonly heapUsed: number;
}

async function startApp(): Promise<{ child: ChildProcess; port: number; memory: MemorySample[] }> {
  const [app, sampler] = await Promise.all([bundleApp(), bundleSampler()]);
  const child = spawn(process.execPath, ['--expose-gc', '--import', `./${sampler}`, app], {
    env: {
      ...process.env,
      AUTH_SECRET: SECRET,
      PORT: '0',
      RATE_LIMIT_MAX: '100000000',
      SOAK_SAMPLE_MS: String(SAMPLE_MS),
    },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const memory: MemorySample[] = [];
  child.on('message', (message: MemorySample & { kind?: string }) => {
    if (message.kind === 'memory')
      memory.push({ at: message.at, rss: message.rss, heapUsed: message.heapUsed });
  });
  let out = '';
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    const port = /localhost:(\d+)/.exec(out)?.[1];
    if (port !== undefined) return { child, port: Number(port), memory };
  }
  throw new Error(`the app exited before listening: ${out}`);
}

/** mulberry32: a small seeded generator, so every soak sends the same mix. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Spec {
  readonly kind: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

interface Outcome {
  readonly at: number;
  readonly ms: number;
  readonly status: number;
  readonly kind: string;
  /** The request carried an Idempotency-Key. */
  readonly keyed?: boolean;
  /** The answer was a replay (`Idempotent-Replayed: true`). */
  readonly replayed?: boolean;
  readonly location?: string | undefined;
  readonly etag?: string | undefined;
}

function send(port: number, agent: http.Agent, spec: Spec): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const headers = { ...spec.headers };
    if (spec.body !== undefined) headers['content-length'] = String(Buffer.byteLength(spec.body));
    const req = http.request(
      { host: '127.0.0.1', port, method: spec.method, path: spec.path, headers, agent },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            at: Date.now(),
            ms: performance.now() - started,
            status: res.statusCode!,
            kind: spec.kind,
            keyed: 'idempotency-key' in spec.headers,
            replayed: res.headers['idempotent-replayed'] === 'true',
            location: res.headers.location,
            etag: res.headers.etag,
          }),
        );
      },
    );
    // A connection error counts as a failure (status 0), never silently.
    req.on('error', () =>
      resolve({ at: Date.now(), ms: performance.now() - started, status: 0, kind: spec.kind }),
    );
    req.end(spec.body);
  });
}

const JSON_API = 'application/vnd.api+json';
// The 14 books of the embedded catalogue.
const BOOKS = Array.from({ length: 14 }, (_, i) => i + 1);
const AUTHORS = ['Italo%20Calvino', 'Ursula%20K.%20Le%20Guin', 'Nobody'];

/** The workload: weighted kinds of request, drawn from `random`, with state they build on. */
function workload(random: () => number, token: string, other: string) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const state = { etags: new Map<string, string>(), orders: [] as string[], keys: [] as string[], next: 0 };
  const order = JSON.stringify({ data: { type: 'orders', attributes: { bookId: 3, quantity: 1 } } });
  const auth = { authorization: token, 'content-type': JSON_API };
  const bounded = MIX === 'bounded';
  /** A key of the given kind: always new (mixed), or one of a fixed set (bounded). */
  const key = (kind: string) => `soak-${kind}-${bounded ? state.next++ % KEY_SET : state.next++}`;
  const orderPath = () => (state.orders.length > 0 ? pick(state.orders) : '/orders/1');
  const change = () =>
    JSON.stringify({ data: { type: 'orders', attributes: { quantity: 1 + Math.floor(random() * 9) } } });
  const keylessUpdate = (): Spec => ({
    kind: 'update, no key',
    method: 'PATCH',
    path: orderPath(),
    headers: { ...auth, 'if-match': '*' },
    body: change(),
  });
  const kinds: Array<[weight: number, make: () => Spec]> = [
    [30, () => ({ kind: 'read', method: 'GET', path: `/books/${pick(BOOKS)}`, headers: {} })],
    [15, () => ({ kind: 'read', method: 'GET', path: `/books?author=${pick(AUTHORS)}`, headers: {} })],
    [
      15,
      () => {
        const path = `/books/${pick(BOOKS)}`;
        const etag = state.etags.get(path);
        return {
          kind: 'conditional read',
          method: 'GET',
          path,
          headers: etag ? { 'if-none-match': etag } : {},
        };
      },
    ],
    [
      10,
      () => {
        const fresh = key('order');
        if (state.keys.length < KEY_SET || !bounded) state.keys.push(fresh);
        return {
          kind: 'write, new key',
          method: 'POST',
          path: '/orders',
          headers: { ...auth, 'idempotency-key': `"${fresh}"` },
          body: order,
        };
      },
    ],
    [
      5,
      () => ({
        kind: 'write, replayed key',
        method: 'POST',
        path: '/orders',
        headers: {
          ...auth,
          'idempotency-key': `"${state.keys.length > 0 ? pick(state.keys) : 'soak-first'}"`,
        },
        body: order,
      }),
    ],
    [
      5,
      () =>
        bounded
          ? keylessUpdate()
          : { kind: 'write, no key', method: 'POST', path: '/orders', headers: auth, body: order },
    ],
    [
      8,
      () =>
        bounded
          ? keylessUpdate()
          : {
              kind: 'update',
              method: 'PATCH',
              path: orderPath(),
              headers: { ...auth, 'if-match': '*', 'idempotency-key': `"${key('patch')}"` },
              body: change(),
            },
    ],
    [
      12,
      () =>
        pick<Spec>([
          { kind: 'bad', method: 'POST', path: '/orders', headers: auth, body: '{"data":{"type":"ord' },
          { kind: 'bad', method: 'GET', path: '/books/1', headers: { authorization: 'Bearer a.b.c' } },
          { kind: 'bad', method: 'GET', path: '/nowhere', headers: {} },
          { kind: 'bad', method: 'GET', path: '/users/1/orders', headers: { authorization: other } },
          {
            kind: 'bad',
            method: 'POST',
            path: '/orders',
            headers: { ...auth, 'idempotency-key': `"${key('bad')}"` },
            body: JSON.stringify({ data: { type: 'orders', attributes: { bookId: 'x', extra: true } } }),
          },
        ]),
    ],
  ];
  const total = kinds.reduce((sum, [weight]) => sum + weight, 0);
  return {
    next(): Spec {
      let roll = random() * total;
      for (const [weight, make] of kinds) {
        roll -= weight;
        if (roll < 0) return make();
      }
      return kinds[0]![1]();
    },
    learn(spec: Spec, outcome: Outcome) {
      if (spec.method === 'GET' && outcome.status === 200 && outcome.etag)
        state.etags.set(spec.path, outcome.etag);
      if (outcome.status === 201 && outcome.location && state.orders.length < 200) {
        state.orders.push(new URL(outcome.location, 'http://x').pathname);
      }
    },
  };
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function median(values: readonly number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

const judged = <T>(values: readonly T[]): T[] => values.slice(Math.floor(values.length * WARM_UP_SHARE));

/** Memory: the trend (least squares, per minute) over the judged windows, and whether it is flat. */
function memoryTrend(points: ReadonlyArray<readonly [seconds: number, value: number]>) {
  const kept = judged(points);
  const n = kept.length;
  const mx = kept.reduce((sum, [x]) => sum + x, 0) / n;
  const my = kept.reduce((sum, [, y]) => sum + y, 0) / n;
  const sxx = kept.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  const slope = sxx === 0 ? 0 : kept.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0) / sxx;
  const span = n > 1 ? kept[n - 1]![0] - kept[0]![0] : 0;
  const first = kept[0]?.[1] ?? 0;
  const growth = slope * span;
  return {
    first,
    last: kept[n - 1]?.[1] ?? 0,
    perMinute: Math.round(slope * 60 * 100) / 100,
    flat: growth <= first * FLAT.memoryShare || growth <= FLAT.memoryMB,
  };
}

/** p99: the later half's median against the earlier half's. */
function latencyLevel(values: readonly number[]) {
  const kept = judged(values);
  const half = Math.floor(kept.length / 2);
  const early = median(kept.slice(0, half));
  const late = median(kept.slice(half));
  return { early, late, flat: late <= early * (1 + FLAT.p99Share) || late - early <= FLAT.p99Ms };
}

const { child, port, memory } = await startApp();
const exited = once(child, 'exit');
const token = `Bearer ${await signHs256Token(SECRET, { sub: '1' })}`;
const other = `Bearer ${await signHs256Token(SECRET, { sub: '2' })}`;
const agent = new http.Agent({ keepAlive: true, maxSockets: WORKERS });
const mix = workload(seeded(18), token, other);
const outcomes: Outcome[] = [];
const started = Date.now();
const deadline = started + SECONDS * 1000;
const spacing = (WORKERS * 1000) / RATE;
process.stdout.write(`soak: ${SECONDS} s at ${RATE} requests/s over ${WORKERS} connections, loopback\n`);

await Promise.all(
  Array.from({ length: WORKERS }, async (_, w) => {
    let due = started + (w * spacing) / WORKERS;
    while (Date.now() < deadline) {
      const spec = mix.next();
      const outcome = await send(port, agent, spec);
      mix.learn(spec, outcome);
      outcomes.push(outcome);
      due += spacing;
      // Pacing: the next request of this connection is due at a fixed rate, or at once when late.
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }),
);
agent.destroy();
child.kill('SIGTERM');
const [exitCode] = await exited;

const windows = memory.map((sample, i) => {
  const from = i === 0 ? started : memory[i - 1]!.at;
  const inWindow = outcomes.filter((o) => o.at > from && o.at <= sample.at);
  const latencies = inWindow.map((o) => o.ms).sort((a, b) => a - b);
  return {
    seconds: Math.round((sample.at - started) / 100) / 10,
    rssMB: Math.round((sample.rss / 2 ** 20) * 10) / 10,
    heapMB: Math.round((sample.heapUsed / 2 ** 20) * 10) / 10,
    requests: inWindow.length,
    p50Ms: Math.round(quantile(latencies, 0.5) * 100) / 100,
    p99Ms: Math.round(quantile(latencies, 0.99) * 100) / 100,
  };
});
const byStatus: Record<string, number> = {};
const byKind: Record<string, Record<string, number>> = {};
for (const o of outcomes) {
  byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
  byKind[o.kind] ??= {};
  byKind[o.kind]![o.status] = (byKind[o.kind]![o.status] ?? 0) + 1;
}
const rss = memoryTrend(windows.map((w) => [w.seconds, w.rssMB] as const));
const heap = memoryTrend(windows.map((w) => [w.seconds, w.heapMB] as const));
const p99 = latencyLevel(windows.map((w) => w.p99Ms));
// What the app was asked to keep: orders created, and idempotency records (one per fresh key that
// got a storable answer). Growth in step with these is data, not a leak.
const kept = {
  ordersCreated: outcomes.filter((o) => o.status === 201 && !o.replayed).length,
  idempotencyRecords: outcomes.filter(
    (o) =>
      o.keyed === true &&
      !o.replayed &&
      o.status >= 200 &&
      o.status < 500 &&
      o.status !== 401 &&
      o.status !== 409 &&
      o.status !== 422 &&
      o.status !== 429,
  ).length,
};
const failures = outcomes.filter((o) => o.status === 0 || o.status >= 500).length;
const report = {
  settings: {
    mix: MIX,
    seconds: SECONDS,
    sampleMs: SAMPLE_MS,
    rate: RATE,
    workers: WORKERS,
    node: process.version,
  },
  requests: outcomes.length,
  achievedRate: Math.round((outcomes.length / SECONDS) * 10) / 10,
  failures,
  byStatus,
  byKind,
  appExitCode: exitCode,
  kept,
  verdict: {
    rule:
      `after the first ${WARM_UP_SHARE * 100}% of the run: memory's least-squares trend adds at most ` +
      `${FLAT.memoryShare * 100}% or ${FLAT.memoryMB} MB over the judged span; p99's later-half median ` +
      `is within ${FLAT.p99Share * 100}% or ${FLAT.p99Ms} ms of its earlier-half median`,
    rssMB: rss,
    heapMB: heap,
    p99Ms: p99,
    flat: rss.flat && heap.flat && p99.flat && failures === 0,
  },
  windows,
};
writeFileSync(join(OUT, `${REPORT}.json`), `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(join(OUT, `${REPORT}.svg`), soakPlot(windows));
process.stdout.write(
  `${outcomes.length} requests (${report.achievedRate}/s), ${failures} failures; statuses ${JSON.stringify(byStatus)}\n` +
    `RSS ${rss.first} -> ${rss.last} MB (${rss.perMinute} MB/min), heap ${heap.first} -> ${heap.last} MB ` +
    `(${heap.perMinute} MB/min), p99 ${p99.early} -> ${p99.late} ms; kept ${JSON.stringify(kept)}: ` +
    `${report.verdict.flat ? 'flat' : 'NOT flat'}\nwritten: ${join(OUT, `${REPORT}.json`)}, ${join(OUT, `${REPORT}.svg`)}\n`,
);
process.exitCode = report.verdict.flat ? 0 : 1;

/**
 * `npm run bench:memory`: what the embedded stores cost, in heap bytes per entry and in time per
 * call, at 10 and at 10^6 entries (docs/benchmarks.md, "Memory stores").
 *
 * 1. 10^6 completed idempotency records (120-byte body, `Content-Type` and `Location` kept, keys
 *    scoped as the middleware scopes them), then the same after their retention ran out and later
 *    claims reclaimed them.
 * 2. 10^6 rate-limit clients (one policy), then the same after their window passed.
 * 3. tinybench: a claim of a fresh key with 10 and with 10^6 records stored (the cost must not grow
 *    with the store), and a rate-limit decision with 10 and 10^6 clients.
 *
 * Runs on the TypeScript source through tsx, with node's `--expose-gc` (the script re-runs itself
 * with it when missing). BENCH_ENTRIES changes the 10^6.
 */
import { spawnSync } from 'node:child_process';
import { Bench } from 'tinybench';
import { scopeKey } from '../src/idempotency/decision.js';
import { memoryIdempotencyStore } from '../src/idempotency/index.js';
import { memoryRateLimitStore } from '../src/ratelimit/index.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
const gc = (globalThis as { gc?: () => void }).gc;

if (gc === undefined) {
  const rerun = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  process.exit(rerun.status ?? 1);
}

const DAY = 24 * 60 * 60 * 1000;
const BODY = new Uint8Array(
  Buffer.from(`{"data":{"type":"orders","id":"1","attributes":{"bookId":7,"quantity":1}}}`.padEnd(120, ' ')),
);

/** Heap in use plus array buffers, after a full collection. */
function heap(): number {
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** A key as a client sends it (a UUID, flat as the HTTP parser makes it). */
function clientKey(i: number): string {
  return Buffer.from(`${i.toString(16).padStart(8, '0')}-7b1e-4c2a-9f3d-0123456789ab`, 'latin1').toString(
    'latin1',
  );
}

function fingerprint(i: number): string {
  return Buffer.from(`${i.toString(16).padStart(64, '0')}`, 'latin1').toString('latin1');
}

/** `count` completed records, written over half a day (so leases of earlier claims ran out, as in use). */
async function fillIdempotency(count: number, clock: { t: number }) {
  const step = DAY / 2 / Math.max(count, 1);
  const store = memoryIdempotencyStore({
    now: () => clock.t,
    maxEntries: Math.max(count, 1),
    maxBytes: Number.MAX_SAFE_INTEGER,
    ownerMaxEntries: Math.max(count, 1),
    ownerMaxBytes: Number.MAX_SAFE_INTEGER,
  });
  for (let i = 0; i < count; i++) {
    const key = scopeKey('1', clientKey(i));
    const claim = await store.claim(key, fingerprint(i), 10_000, 'sub:1');
    if (claim.kind !== 'claimed') throw new Error(`claim ${i}: ${claim.kind}`);
    await store.complete(
      key,
      claim.token,
      {
        status: 201,
        headers: { 'content-type': 'application/vnd.api+json', location: `/orders/${i}` },
        body: BODY,
      },
      DAY,
    );
    clock.t += step;
  }
  return store;
}

async function idempotencyMemory(): Promise<void> {
  const clock = { t: 1_700_000_000_000 };
  const before = heap();
  const store = await fillIdempotency(ENTRIES, clock);
  const full = heap();
  clock.t += DAY;
  // Reclaiming is incremental: each claim takes a few expired records (all of them when full).
  for (let i = 0; store.size > 1_000 && i < ENTRIES; i++) {
    clock.t += 10;
    await store.claim(`later-${i}`, 'fp', 10, `later-${i % 100}`);
  }
  const after = heap();
  console.log(
    `idempotency memory store: ${ENTRIES} completed records (120-byte body): ` +
      `${((full - before) / ENTRIES).toFixed(0)} B/entry, ${((full - before) / 2 ** 20).toFixed(0)} MiB; ` +
      `after expiry: ${store.size} records, ${((after - before) / 2 ** 20).toFixed(1)} MiB`,
  );
}

function rateLimitMemory(): void {
  const clock = { t: 1_700_000_000_000 };
  const policies = [{ name: 'default', quota: 100, windowSeconds: 60 }];
  const before = heap();
  const store = memoryRateLimitStore({ maxEntries: ENTRIES, now: () => clock.t });
  for (let i = 0; i < ENTRIES; i++)
    store.consumeSync(`ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, policies);
  const full = heap();
  clock.t += 61_000;
  for (let i = 0; store.size > 1_000 && i < ENTRIES; i++) store.consumeSync(`ip:later-${i % 100}`, policies);
  const after = heap();
  console.log(
    `rate-limit memory store: ${ENTRIES} clients: ${((full - before) / ENTRIES).toFixed(0)} B/entry, ` +
      `${((full - before) / 2 ** 20).toFixed(0)} MiB; after the window: ${store.size} entries, ` +
      `${((after - before) / 2 ** 20).toFixed(1)} MiB`,
  );
}

async function claimCost(): Promise<void> {
  const bench = new Bench({ time: 1_000 });
  for (const count of [10, ENTRIES]) {
    const clock = { t: 1_700_000_000_000 };
    const store = await fillIdempotency(count, clock);
    let n = 0;
    bench.add(`idempotency claim + complete, ${count} stored`, async () => {
      const key = `bench-${count}-${n++}`;
      const claim = await store.claim(key, 'fp', 10_000, `owner-${n % 1000}`);
      if (claim.kind === 'claimed') {
        await store.complete(key, claim.token, { status: 201, headers: {}, body: BODY }, 1);
      }
      // Records of 1 ms retention expire as the clock moves: the store stays at `count`.
      clock.t += 1;
    });
    const limiter = memoryRateLimitStore({ maxEntries: Math.max(count, 10), now: () => clock.t });
    const policies = [{ name: 'default', quota: 100, windowSeconds: 60 }];
    for (let i = 0; i < count; i++) limiter.consumeSync(`ip:${i}`, policies);
    let m = 0;
    bench.add(`rate-limit decision, ${count} clients`, () => {
      limiter.consumeSync(`ip:${m++ % count}`, policies);
    });
  }
  await bench.run();
  console.table(
    bench.tasks.map(({ name, result }) =>
      result.state !== 'completed'
        ? { task: name, state: result.state }
        : {
            task: name,
            'ops/s': Math.round(1000 / result.period),
            'mean us': (result.latency.mean * 1000).toFixed(2),
            'p75 us': (result.latency.p75 * 1000).toFixed(2),
            'p99 us': (result.latency.p99 * 1000).toFixed(2),
          },
    ),
  );
}

await idempotencyMemory();
rateLimitMemory();
await claimCost();

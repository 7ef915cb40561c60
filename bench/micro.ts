/**
 * `npm run bench:micro`: operations per second of the pure cores on the hot paths, with tinybench
 * (each task bounded by BENCH_MICRO_MS, default 500 ms, after a 100 ms warm-up). tinybench, not
 * mitata: it is already what vitest's `bench` runs on (one engine in the tree), has no dependencies,
 * and bounds each task by time, which keeps the run short on a shared machine; mitata's finer
 * statistics matter little next to the noise of other load here.
 */
import { BlockList, isIP } from 'node:net';
import { jwtVerify } from 'jose';
import { Bench } from 'tinybench';
import { hmacJwtVerifier } from '../src/auth/hmac-jwt.js';
import { hs256Verifier, signHs256Token } from '../src/auth/verifier.js';
import { decidePreconditions } from '../src/caching/preconditions.js';
import { dataDocument } from '../src/envelope/build.js';
import { defineResourceType } from '../src/envelope/resource-type.js';
import { requestFingerprint } from '../src/idempotency/fingerprint.js';
import { clientAddress, parseAddressBlock } from '../src/ratelimit/client-address.js';
import { type GcraState, gcraDecide } from '../src/ratelimit/gcra.js';
import { ORDER_BODY } from './cases.js';

const time = Number(process.env.BENCH_MICRO_MS ?? 500);
if (!Number.isInteger(time) || time < 10 || time > 60_000) {
  throw new TypeError('BENCH_MICRO_MS must be an integer from 10 to 60000');
}

const secret = 'bench-secret-bench-secret-bench-secret!';
const token = await signHs256Token(secret, { sub: '1', scope: 'orders:read orders:write' });
const verifier = hs256Verifier({ secret });
// The fast path with its memo of verified tokens off: the HMAC and the checks on every call.
const uncached = hmacJwtVerifier({
  secret: new TextEncoder().encode(secret),
  algorithms: ['HS256'],
  clockToleranceSeconds: 0,
  cacheSize: 0,
});
const joseKey = new TextEncoder().encode(secret);
const joseOptions = { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'], clockTolerance: 0 };

const updatedAt = new Date('2026-01-15T09:30:00Z');
const book = { id: 7, title: 'Dawn', author: 'Octavia E. Butler', updatedAt, internalSku: 'SKU-9006' };
const books = defineResourceType<typeof book, 'title' | 'author'>({
  type: 'books',
  id: (b) => b.id,
  attributes: ['title', 'author'],
  links: (b) => ({ self: `/books/${b.id}` }),
});
const body = Buffer.from(ORDER_BODY);
const policy = { name: 'default', quota: 1_000, windowSeconds: 60 };
let state: GcraState | undefined;
let clock = Date.now();

// Trusted proxies, the library's parser against node's net.BlockList (the alternative issue 12
// asked to weigh): the same walk of X-Forwarded-For from the right past trusted hops.
const trustList = ['10.0.0.0/8', 'fd00::/8'];
const trustedBlocks = trustList.map(parseAddressBlock);
const blockList = new BlockList();
blockList.addSubnet('10.0.0.0', 8, 'ipv4');
blockList.addSubnet('fd00::', 8, 'ipv6');
const familyOf = (address: string) => (isIP(address) === 4 ? 'ipv4' : 'ipv6');
function blockListClient(peer: string, forwardedFor: string): string | undefined {
  if (isIP(peer) === 0 || !blockList.check(peer, familyOf(peer))) return peer;
  const hops = forwardedFor.split(',');
  let current = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!.trim();
    if (isIP(hop) === 0) return current;
    current = hop;
    if (!blockList.check(hop, familyOf(hop))) return hop;
  }
  return current;
}
const forwarded = '198.51.100.9, 10.0.0.5';

const bench = new Bench({ time, warmupTime: 100 });
bench
  .add('preconditions: If-None-Match matches (304)', () => {
    decidePreconditions({
      method: 'GET',
      headers: { ifNoneMatch: '"7-1768469400000"' },
      current: { exists: true, etag: '"7-1768469400000"', lastModified: updatedAt },
    });
  })
  .add('preconditions: no condition (proceed)', () => {
    decidePreconditions({ method: 'GET', headers: {}, current: { exists: true, etag: '"7-1768469400000"' } });
  })
  .add('envelope: one book document', () => {
    dataDocument(books.toResource(book), { links: { self: '/books/7' } });
  })
  .add('idempotency fingerprint: POST /orders', () => {
    requestFingerprint({
      method: 'POST',
      path: '/orders',
      search: '',
      contentType: 'application/vnd.api+json',
      body,
    });
  })
  .add('rate limit: GCRA decision', () => {
    clock += 1;
    state = gcraDecide(state, clock, policy).newState;
  })
  .add('client address: trusted proxy, two X-Forwarded-For hops (library)', () => {
    clientAddress('10.0.0.2', forwarded, trustedBlocks);
  })
  .add('client address: the same walk over net.BlockList', () => {
    blockListClient('10.0.0.2', forwarded);
  })
  .add('client address: untrusted IPv6 peer (library)', () => {
    clientAddress('2001:db8:1:2ff::1', forwarded, trustedBlocks);
  })
  .add('client address: untrusted IPv6 peer (net.BlockList)', () => {
    blockListClient('2001:db8:1:2ff::1', forwarded);
  })
  .add('token: HS256 fast path (node:crypto), not remembered', () => {
    uncached(token);
  })
  .add('token: HS256 remembered (hs256Verifier)', async () => {
    await verifier.verify(token);
  })
  .add('token: HS256 through jose', async () => {
    await jwtVerify(token, joseKey, joseOptions);
  });

await bench.run();
const rows = bench.tasks.map((task) => {
  const result = task.result;
  if (result.state !== 'completed') return { task: task.name, state: result.state };
  // ops/s from the mean time per operation (tinybench's mean of per-sample throughput leans on
  // the fastest samples); the median shows the typical operation apart from the outliers.
  return {
    task: task.name,
    'ops/s': Math.round(1000 / result.period),
    'mean us': Number((result.period * 1000).toFixed(2)),
    'median us': Number((result.latency.p50 * 1000).toFixed(2)),
    samples: result.latency.samplesCount,
  };
});
console.table(rows);

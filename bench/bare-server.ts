/**
 * The floors: a bare node:http server answering the benchmarked requests with fixed bytes and
 * headers (the reference app's own answers, captured by the bench runner). Nothing is parsed,
 * routed or checked: a request is matched on its method, target and whether it has
 * `If-None-Match`. With BENCH_SERIALIZE=1 it serializes the captured document on every request
 * instead of sending canned bytes: the price of JSON alone.
 */
import http from 'node:http';
import { cannedKey } from './cases.js';

interface Canned {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly document?: unknown;
}

const serialize = process.env.BENCH_SERIALIZE === '1';
const responses = new Map<string, Canned>(
  Object.entries(JSON.parse(process.env.BENCH_CANNED ?? '{}') as Record<string, Canned>).map(
    ([key, canned]) => [
      key,
      serialize && canned.body !== '' ? { ...canned, document: JSON.parse(canned.body) } : canned,
    ],
  ),
);

const server = http.createServer((req, res) => {
  const canned = responses.get(
    cannedKey(req.method ?? '', req.url ?? '', req.headers['if-none-match'] !== undefined),
  );
  if (canned === undefined) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(canned.status, canned.headers);
  res.end(canned.document === undefined ? canned.body : Buffer.from(JSON.stringify(canned.document)));
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
});

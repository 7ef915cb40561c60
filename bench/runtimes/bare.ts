/**
 * The floor on Bun or Deno: the runtime's server answering the benchmarked requests with the
 * reference app's captured bytes (`BENCH_CANNED`, as `bench/bare-server.ts` on Node). Nothing is
 * parsed, routed or checked: a request is matched on its method, target and whether it has
 * `If-None-Match`.
 */
import { cannedKey } from '../cases.js';
import { runtimeEnv, serveFetch } from './serve.js';

interface Canned {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const responses = new Map<
  string,
  { readonly status: number; readonly headers: Headers; readonly body: Uint8Array<ArrayBuffer> | null }
>(
  Object.entries(JSON.parse(runtimeEnv().BENCH_CANNED ?? '{}') as Record<string, Canned>).map(
    ([key, { status, headers, body }]) => [
      key,
      { status, headers: new Headers(headers), body: body === '' ? null : new TextEncoder().encode(body) },
    ],
  ),
);

serveFetch((request) => {
  const url = request.url;
  const target = url.slice(url.indexOf('/', url.indexOf('//') + 2));
  const canned = responses.get(cannedKey(request.method, target, request.headers.has('if-none-match')));
  if (canned === undefined) return new Response(null, { status: 404 });
  return new Response(canned.body, { status: canned.status, headers: canned.headers });
});

/**
 * WHATWG fetch adapter: `(Request) => Promise<Response>`, for Hono, Deno, Bun, workers and undici.
 * Fetch requests carry no peer address; pass it as `info.remoteAddress` where the runtime knows it.
 */
import type { App } from '../app/app.js';
import { bodyBytes } from '../core/response.js';
import type { ApiResponse, RequestView } from '../http/types.js';
import { fetchHeaders } from './fetch-headers.js';

const EMPTY_BODY: AsyncIterable<Uint8Array> = { async *[Symbol.asyncIterator]() {} };

/** A neutral request view over a fetch `Request`. */
export function fromFetchRequest(request: Request, remoteAddress?: string): RequestView {
  const url = request.url;
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  const rest = pathStart === -1 ? '/' : url.slice(pathStart);
  const hash = rest.indexOf('#');
  const target = hash === -1 ? rest : rest.slice(0, hash);
  const query = target.indexOf('?');
  return {
    method: request.method,
    path: query === -1 ? target : target.slice(0, query),
    search: query === -1 ? '' : target.slice(query + 1),
    headers: fetchHeaders(request.headers),
    remoteAddress,
    body: () => bodyOf(request),
  };
}

/**
 * The body of a fetch request. One of declared length (`Content-Length`) is read whole by the
 * runtime (`arrayBuffer()`), natively: a stream reader runs the runtime's JavaScript stream
 * machinery for each chunk, a third of the CPU of an authenticated `POST` on Bun
 * (docs/benchmarks.md). The declared length bounds what is read: an HTTP server frames the body by
 * it (RFC 9112 section 6.2), and `readBody` refuses a declared length over its limit before it reads
 * a byte. A body without one (chunked) is streamed, so that a limit stops it as it arrives.
 */
function bodyOf(request: Request): AsyncIterable<Uint8Array> {
  if (request.headers.has('content-length')) return wholeBody(request);
  return (request.body as AsyncIterable<Uint8Array> | null) ?? EMPTY_BODY;
}

async function* wholeBody(request: Request): AsyncIterable<Uint8Array> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > 0) yield bytes;
}

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

/** A fetch `Response` from a neutral response. */
export function toFetchResponse(response: ApiResponse): Response {
  const { raw, status } = response;
  const { headers } = response;
  let body: BodyInit | null = null;
  if (!NULL_BODY_STATUS.has(status)) {
    if (raw !== undefined && typeof raw !== 'string' && !(raw instanceof Uint8Array)) body = streamOf(raw);
    else {
      const bytes = bodyBytes(response);
      // Stated for an empty body too (RFC 9110 section 8.6), as Node, Bun, Deno and workerd all
      // frame one: the handler's answer is the same in process and on the wire.
      headers['content-length'] ??= String(bytes?.byteLength ?? 0);
      if (bytes !== undefined) body = bytes as BodyInit;
    }
  }
  const { fieldLines } = response;
  if (fieldLines === undefined) return new Response(body, { status, headers });
  const fields = new Headers(headers);
  for (const [name, values] of Object.entries(fieldLines))
    for (const value of values) fields.append(name, value);
  return new Response(body, { status, headers: fields });
}

function streamOf(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** Connection facts a runtime may know about a fetch request. */
export interface FetchRequestInfo {
  readonly remoteAddress?: string;
}

/** Options of {@link toFetchHandler}. */
export interface FetchHandlerOptions {
  /**
   * The client's address when the runtime knows it but the caller of the handler does not pass
   * `info.remoteAddress` (Bun: `server.requestIP(request)?.address`; behind a trusted proxy, the
   * proxy's header). Without either, anonymous callers share the rate-limit bucket `ip:unknown`.
   */
  readonly clientAddress?: (request: Request) => string | undefined;
}

/**
 * A fetch handler.
 * @example export default { fetch: toFetchHandler(app) }
 */
export function toFetchHandler(
  app: App,
  options: FetchHandlerOptions = {},
): (request: Request, info?: FetchRequestInfo) => Promise<Response> {
  const { clientAddress } = options;
  if (clientAddress !== undefined && typeof clientAddress !== 'function') {
    throw new TypeError('toFetchHandler: clientAddress must be a function (request) => string | undefined');
  }
  return async function fetchHandler(request, info) {
    const address = info?.remoteAddress ?? clientAddress?.(request);
    return toFetchResponse(await app.handle(fromFetchRequest(request, address)));
  };
}

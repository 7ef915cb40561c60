/**
 * WHATWG fetch adapter: `(Request) => Promise<Response>`, for Hono, Deno, Bun, workers and undici.
 * Fetch requests carry no peer address; pass it as `info.remoteAddress` where the runtime knows it.
 */
import type { App } from '../app/app.js';
import { bodyBytes } from '../core/response.js';
import { ApiError } from '../errors/api-error.js';
import { errorDocument } from '../errors/error-document.js';
import { JSON_API } from '../http/media-types.js';
import { originForm } from '../http/request-target.js';
import type { ApiResponse, RequestView } from '../http/types.js';
import { fetchHeaders } from './fetch-headers.js';
import { runtimePeerAddress, warnOnceWithoutAddress } from './runtime-address.js';

const EMPTY_BODY: AsyncIterable<Uint8Array> = { async *[Symbol.asyncIterator]() {} };

/**
 * A neutral request view over a fetch `Request`. `rawTarget` is the request target as the client
 * sent it, where the runtime knows it (`@hono/node-server`: `env.incoming.url`): the `Request`'s URL
 * has been resolved by the WHATWG parser (dot segments removed, a fragment dropped, `\` read as
 * `/`), so without it those are answered for the resolved path.
 */
export function fromFetchRequest(request: Request, remoteAddress?: string, rawTarget?: string): RequestView {
  return fetchRequestView(request, () => remoteAddress, rawTarget);
}

/**
 * {@link fromFetchRequest} with the client's address read when a layer first asks for it (the rate
 * limiter's key for an anonymous caller, say), not for every request: on Bun `requestIP` costs a
 * tenth of an authenticated request's CPU, which then needs no address.
 */
function fetchRequestView(
  request: Request,
  readAddress: () => string | undefined,
  rawTarget: string | undefined,
): RequestView {
  const target = rawTarget === undefined ? resolvedTarget(request.url) : originForm(rawTarget);
  const query = target.indexOf('?');
  let address: string | undefined | typeof UNREAD = UNREAD;
  return {
    method: request.method,
    path: query === -1 ? target : target.slice(0, query),
    search: query === -1 ? '' : target.slice(query + 1),
    headers: fetchHeaders(request.headers),
    get remoteAddress() {
      if (address === UNREAD) address = readAddress();
      return address;
    },
    body: () => bodyOf(request),
  };
}

const UNREAD: unique symbol = Symbol('address not read yet');

/**
 * The body of a fetch request. One of declared length (`Content-Length`) is read whole by the
 * runtime (`arrayBuffer()`), natively, and handed over as one promise: a stream reader runs the
 * runtime's JavaScript stream machinery for each chunk, a third of the CPU of an authenticated
 * `POST` on Bun (docs/benchmarks.md), and an async generator around the whole read another tenth of
 * its instructions (callgrind). The declared length bounds what is read: an HTTP server
 * frames the body by it (RFC 9112 section 6.2), and `readBody` refuses a declared length over its
 * limit before it reads a byte. A body without one (chunked) is streamed, so that a limit stops it
 * as it arrives.
 */
function bodyOf(request: Request): AsyncIterable<Uint8Array> | Promise<Uint8Array> {
  if (request.headers.has('content-length')) return request.arrayBuffer().then(toBytes);
  return (request.body as AsyncIterable<Uint8Array> | null) ?? EMPTY_BODY;
}

const toBytes = (buffer: ArrayBuffer): Uint8Array => new Uint8Array(buffer);

/** The path and query of a URL the WHATWG parser resolved, without its fragment. */
function resolvedTarget(url: string): string {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  const rest = pathStart === -1 ? '/' : url.slice(pathStart);
  const hash = rest.indexOf('#');
  return hash === -1 ? rest : rest.slice(0, hash);
}

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);
const encoder = new TextEncoder();
/**
 * Printable ASCII, one byte per character in UTF-8: all of JSON.stringify's text but for strings
 * outside ASCII (it escapes control characters).
 */
const PRINTABLE_ASCII = /^[ -~]*$/;

/** A fetch `Response` from a neutral response. */
export function toFetchResponse(response: ApiResponse): Response {
  const { raw, status } = response;
  const { headers } = response;
  let body: BodyInit | null = null;
  if (!NULL_BODY_STATUS.has(status)) {
    if (raw !== undefined && typeof raw !== 'string' && !(raw instanceof Uint8Array)) body = streamOf(raw);
    else {
      const text = bodyText(response);
      let length: number;
      if (text !== undefined && PRINTABLE_ASCII.test(text)) {
        // Text goes to the runtime as it is, which writes it natively (docs/runtimes.md): bytes were
        // a buffer more per response, and on Bun `Buffer.from` costs more than on Node.
        body = text;
        length = text.length;
      } else {
        const bytes = text === undefined ? bodyBytes(response) : encoder.encode(text);
        length = bytes?.byteLength ?? 0;
        if (bytes !== undefined) body = bytes as BodyInit;
      }
      // Stated for an empty body too (RFC 9110 section 8.6), as Node, Bun, Deno and workerd all
      // frame one: the handler's answer is the same in process and on the wire.
      headers['content-length'] ??= String(length);
    }
  }
  const { fieldLines } = response;
  if (fieldLines === undefined) return new Response(body, { status, headers });
  const fields = new Headers(headers);
  for (const [name, values] of Object.entries(fieldLines))
    for (const value of values) fields.append(name, value);
  return new Response(body, { status, headers: fields });
}

/**
 * The body as text when it is text (a string, or a JSON document not yet serialized) and the
 * response states its `Content-Type`: a string body without one would be sent as `text/plain` by
 * the Fetch standard's body extraction, so such a body goes as bytes, as the node adapter sends it.
 */
function bodyText(response: ApiResponse): string | undefined {
  const { raw, json } = response;
  if (response.headers['content-type'] === undefined) return undefined;
  if (typeof raw === 'string') return raw;
  return raw === undefined && json !== undefined ? (JSON.stringify(json) as string | undefined) : undefined;
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
  /**
   * The request target as the client sent it (`@hono/node-server`: `env.incoming.url`), so that
   * dot segments, absolute-form and fragments are answered as on the node adapter (docs/security.md,
   * "The request target"). Without it, the target of the `Request`'s resolved URL.
   */
  readonly target?: string;
}

/** Options of {@link toFetchHandler}. */
export interface FetchHandlerOptions {
  /**
   * The client's address when the caller of the handler passes no `info.remoteAddress`: for
   * runtimes whose address this adapter cannot read, or behind a trusted proxy (its header). Without
   * either, what the runtime passed as the handler's second argument (Bun's server, Deno's serve
   * info, `@hono/node-server`'s bindings); with none, anonymous callers share the rate-limit bucket
   * `ip:unknown`, and the first such request logs a warning through the app's logger. The runtime's
   * address is read when a layer first needs it (an anonymous caller's rate-limit key), not before.
   */
  readonly clientAddress?: (request: Request) => string | undefined;
}

/**
 * A fetch handler, for any runtime: `Bun.serve({ fetch })`, `Deno.serve(fetch)`, a Worker's
 * `fetch` (with `{ remoteAddress }` from `CF-Connecting-IP`), `@hono/node-server`'s `serve`.
 * @example export default { fetch: toFetchHandler(app) }
 */
export function toFetchHandler(
  app: App,
  options: FetchHandlerOptions = {},
): (request: Request, info?: FetchRequestInfo | object) => Promise<Response> {
  const { clientAddress } = options;
  if (clientAddress !== undefined && typeof clientAddress !== 'function') {
    throw new TypeError('toFetchHandler: clientAddress must be a function (request) => string | undefined');
  }
  const warnWithoutAddress = warnOnceWithoutAddress('toFetchHandler', app.logger);
  // Not an async function: the app's promise is continued as it is, a promise and a resumption fewer
  // per request; a throw (from `clientAddress`) rejects as it would in one.
  return function fetchHandler(request, info) {
    try {
      const given = info as FetchRequestInfo | undefined;
      // The caller's address and clientAddress are taken at once (a throw from clientAddress rejects
      // here); the runtime's is read only if a layer asks.
      const address = given?.remoteAddress ?? clientAddress?.(request);
      const readAddress =
        address === undefined
          ? () => {
              const peer = runtimePeerAddress(request, info);
              if (peer === undefined) warnWithoutAddress();
              return peer;
            }
          : () => address;
      return app.handle(fetchRequestView(request, readAddress, given?.target)).then(toFetchResponse);
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

/**
 * For `@hono/node-server`'s `errorHandler` option: its refusal of a request it cannot make a
 * `Request` of (a `Host` it cannot parse, a backslash in the path, `*`, a malformed absolute URI) as
 * the 400 error document the node adapter gives what node's parser refuses, rather than an empty
 * 400; anything else as the generic 500 document.
 *
 * @example getRequestListener(handler, { errorHandler: nodeServerErrorResponse })
 */
export function nodeServerErrorResponse(error: unknown): Response {
  const status = error instanceof Error && error.name === 'RequestError' ? 400 : 500;
  return new Response(JSON.stringify(errorDocument(new ApiError(status))), {
    status,
    headers: { 'content-type': JSON_API, 'cache-control': 'no-store', connection: 'close' },
  });
}

/**
 * `rest-conventions/fastify`: the primitives as a Fastify 5 plugin (`conventions`: the way in at
 * `onRequest`, the body handed on at `preParsing`, the way out at `onSend`, errors through the
 * error handler), and a whole rest-conventions app mounted under a prefix (`mountApp`). Fastify is
 * an optional peer dependency, imported for its types only. See `docs/adapters.md`.
 */
import { Readable } from 'node:stream';
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RequestPayload,
} from 'fastify';
import type { App } from '../../app/app.js';
import { bodyBytes, collectBody } from '../../core/response.js';
import { ApiError } from '../../errors/api-error.js';
import { renderError } from '../../errors/render.js';
import type { ApiResponse, Context } from '../../http/types.js';
import { type JsonText, malformedJsonError } from '../../validation/json-text.js';
import {
  type ConventionsOptions,
  conventionsRunner,
  mountPrefix,
  neutralHeaders,
  RecordedBody,
} from '../conventions.js';
import { type ClientAddressOption, clientAddressOption, incomingView, wireBody } from '../node-host.js';

export type { ConventionsOptions } from '../conventions.js';

/** Options of the Fastify {@link conventions} plugin. */
export interface FastifyConventionsOptions extends ConventionsOptions, ClientAddressOption<FastifyRequest> {}

/** One request's trip through the primitives (the plugin's own request property, see `conventions`). */
class Trip {
  /** The context the primitives handed the route, once they let the request through. */
  ctx: Context | undefined = undefined;
  /** Hands the route's response (from `onSend`) to the primitives. */
  respond: ((response: ApiResponse) => void) | undefined = undefined;
  /** Settles with the primitives' final answer. */
  answer: Promise<ApiResponse> | undefined = undefined;
  /** Fastify's `done` of `onRequest`, when the primitives let the request through after it returned. */
  proceed: (() => void) | undefined = undefined;

  constructor(readonly body: RecordedBody) {}
}

/**
 * The per-request properties are Fastify request decorations (`decorateRequest`, set in Fastify's
 * request constructor) rather than WeakMap entries or properties added later: each request keeps one
 * shape, and no weak table is written per request (docs/benchmarks.md, "Adapter overhead").
 */
const CONTEXT = Symbol('rest-conventions context');

type Decorated = FastifyRequest & { [CONTEXT]?: Context | null } & Record<symbol, Trip | null | undefined>;

/**
 * The rest-conventions context of a request that went through {@link conventions}: its `principal`
 * (after `authenticate`), `requestId`, and what primitives such as `decodeJsonBody` need.
 */
export function conventionsContext(request: FastifyRequest): Context | undefined {
  return (request as Decorated)[CONTEXT] ?? undefined;
}

/** Fastify's JSON parser's errors for a body that is not JSON text, as the body decoder reads it. */
const JSON_BODY_ERRORS: Readonly<Record<string, JsonText & { ok: false }>> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: { ok: false, reason: 'empty', message: '' },
  FST_ERR_CTP_INVALID_JSON_BODY: { ok: false, reason: 'syntax', message: '' },
};

/**
 * Fastify's own errors carry `statusCode`; validation errors are 400s with a readable message. A body
 * its JSON parser refused is the 400 `decodeJsonBody` gives (`malformed-json`), as in the other adapters.
 */
function fromFastifyError(thrown: unknown): unknown {
  if (thrown instanceof ApiError || !(thrown instanceof Error)) return thrown;
  const { code } = thrown as FastifyError;
  if (typeof code === 'string' && Object.hasOwn(JSON_BODY_ERRORS, code)) {
    return malformedJsonError(JSON_BODY_ERRORS[code]!, thrown);
  }
  const status = (thrown as FastifyError).statusCode;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) return thrown;
  return new ApiError(status, { ...(status < 500 ? { detail: thrown.message } : {}), cause: thrown });
}

/** Marks a plugin as not encapsulated, so its hooks apply to the routes of the instance using it. */
function unencapsulated<T extends object>(plugin: T): T {
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true });
}

/**
 * The primitives as a Fastify plugin: `await server.register(conventions({ use: [...] }))`, before
 * your routes. Early answers (401, 429, an idempotent replay, a 304) are sent from `onRequest`; the
 * route's response is given to the primitives in `onSend` and what they return is sent instead.
 * The hooks are Fastify's callback style (`done`), which costs Fastify no promise per hook.
 */
export function conventions(options: FastifyConventionsOptions): FastifyPluginAsync {
  const run = conventionsRunner(options, 'fastify');
  const clientAddress = clientAddressOption(options.clientAddress, 'fastify conventions');
  // Per plugin: a scope may register its own `conventions` inside an outer one.
  const TRIP = Symbol('rest-conventions trip');
  const plugin = async (fastify: FastifyInstance) => {
    if (!fastify.hasRequestDecorator(CONTEXT)) fastify.decorateRequest(CONTEXT, null);
    if (!fastify.hasRequestDecorator(TRIP)) fastify.decorateRequest(TRIP, null);
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const decorated = request as Decorated;
      const body = new RecordedBody(() => request.raw);
      const view = incomingView(request.raw, request.url, clientAddress?.(request) ?? request.ip, body);
      const trip = new Trip(body);
      decorated[TRIP] = trip;
      const downstream = (inner: Context): Promise<ApiResponse> => {
        trip.ctx = inner;
        decorated[CONTEXT] = inner;
        const response = new Promise<ApiResponse>((resolve) => {
          trip.respond = resolve;
        });
        trip.proceed?.();
        return response;
      };
      const answer = run(view, downstream, fromFastifyError, decorated[CONTEXT] ?? undefined);
      trip.answer = answer;
      if (trip.ctx !== undefined) {
        done();
        return;
      }
      // A primitive is waiting (a store, a verifier): the route runs if it lets the request through.
      trip.proceed = done;
      answer.then((response) => {
        if (trip.ctx !== undefined) return;
        decorated[TRIP] = null;
        send(reply, response, request.method);
      });
    });
    fastify.addHook(
      'preParsing',
      (request: FastifyRequest, _reply: FastifyReply, payload: RequestPayload, done: PreParsingDone) => {
        const bytes = (request as Decorated)[TRIP]?.body.bytes();
        done(null, bytes === undefined ? payload : Readable.from([Buffer.from(bytes)]));
      },
    );
    fastify.addHook(
      'onSend',
      (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: OnSendDone) => {
        const decorated = request as Decorated;
        const trip = decorated[TRIP];
        if (trip?.respond === undefined) {
          done(null, payload);
          return;
        }
        decorated[TRIP] = null;
        const all = reply.getHeaders();
        const caught = neutralHeaders(all);
        const answered = (response: ApiResponse) => {
          writeAnswer(reply, all, response, caught.setCookie);
          if (request.method === 'HEAD') {
            done(null, headPayload(response));
            return;
          }
          const bytes = wireBody(response, request.method);
          // `null` from an onSend hook sends no payload.
          done(null, bytes === undefined ? null : asBuffer(bytes));
        };
        const hand = (raw: string | Uint8Array | undefined) => {
          const status = reply.statusCode;
          const { headers } = caught;
          trip.respond!(raw === undefined ? { status, headers } : { status, headers, raw });
          trip.answer!.then(answered);
        };
        if (payload instanceof Readable) {
          collectBody({ status: 200, headers: {}, raw: payload }).then(hand, (error: unknown) =>
            done(error as Error),
          );
        } else hand(payloadBody(payload));
      },
    );
    fastify.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
      const ctx = (request as Decorated)[TRIP]?.ctx;
      if (ctx === undefined) throw error;
      const response = renderError(fromFastifyError(error), ctx);
      reply.code(response.status);
      reply.headers(response.headers);
      return reply.send(Buffer.from(bodyBytes(response) ?? new Uint8Array()));
    });
  };
  return unencapsulated(plugin);
}

type PreParsingDone = (error: Error | null, payload?: RequestPayload) => void;
type OnSendDone = (error: Error | null, payload?: unknown) => void;

/** A route's payload other than a stream: strings and bytes as they are, anything else as JSON. */
function payloadBody(payload: unknown): string | Uint8Array | undefined {
  if (payload === undefined || payload === null) return undefined;
  if (typeof payload === 'string' || payload instanceof Uint8Array) return payload;
  return JSON.stringify(payload);
}

/**
 * Writes the primitives' answer over the reply, touching only the headers that differ from what
 * the route set (`before`): removing and setting every header again made up much of the driver's
 * cost. The route's `Set-Cookie` lines stay, after any the primitives add.
 */
function writeAnswer(
  reply: FastifyReply,
  before: Record<string, unknown>,
  response: ApiResponse,
  setCookie: readonly string[],
): void {
  const { headers } = response;
  for (const name in before) {
    if (name === 'set-cookie') continue;
    const value = headers[name];
    if (value === undefined) reply.removeHeader(name);
    else if (before[name] !== value) reply.header(name, value);
  }
  for (const name in headers) {
    if (name === 'set-cookie') {
      reply.removeHeader(name);
      reply.header(name, [headers[name]!, ...setCookie]);
    } else if (!(name in before)) reply.header(name, headers[name]!);
  }
  if (reply.statusCode !== response.status) reply.code(response.status);
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function send(reply: FastifyReply, response: ApiResponse, method: string): FastifyReply {
  reply.code(response.status);
  reply.headers(response.headers);
  if (method === 'HEAD') return reply.send(headPayload(response));
  const bytes = wireBody(response, method);
  return reply.send(payloadOf(bytes, response.headers));
}

/**
 * The payload to hand Fastify for the answer to a HEAD: the GET's bytes. For a GET route Fastify
 * answers HEAD itself (`exposeHeadRoutes`) with an `onSend` hook that runs after ours, sizes
 * `Content-Length` from the payload and drops it (it fails on `null`, the "no payload" of `onSend`);
 * node writes no body for a HEAD either. So a HEAD gets the GET's headers without its content
 * (RFC 9110 section 9.3.2). Without content (204, 304) it gets an empty stream: for anything else
 * that hook would add `Content-Length: 0`, which a 204 must not carry, nor a 304 whose 200 has
 * content (RFC 9110 section 8.6).
 */
function headPayload(response: ApiResponse): Buffer | Readable | undefined {
  const bytes = wireBody(response, 'GET');
  if (bytes !== undefined) return asBuffer(bytes);
  return response.status === 204 || response.status === 304 ? Readable.from([]) : undefined;
}

/**
 * Fastify answers some requests before any hook runs: a malformed URL (`FST_ERR_BAD_URL`), a path
 * parameter longer than `maxParamLength` (`FST_ERR_MAX_PARAM_LENGTH`, 414), an async constraint that
 * failed. Its own JSON then goes out without the primitives' headers. Pass this as the server's
 * `frameworkErrors` option, with the same options as {@link conventions}, so those requests also go
 * through the primitives (security headers, rate limit) and get an error document:
 * `Fastify({ frameworkErrors: conventionsFrameworkErrors(primitives) })`.
 */
export function conventionsFrameworkErrors(
  options: FastifyConventionsOptions,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  const run = conventionsRunner(options, 'fastify');
  const clientAddress = clientAddressOption(options.clientAddress, 'fastify conventionsFrameworkErrors');
  return function fastifyFrameworkErrors(error, request, reply) {
    const view = incomingView(
      request.raw,
      request.url,
      clientAddress?.(request) ?? request.ip,
      () => request.raw,
    );
    run(view, (ctx) => Promise.resolve(renderError(fromFastifyError(error), ctx)), fromFastifyError).then(
      (response) => send(reply, response, request.method),
      () => reply.code(500).send(),
    );
  };
}

/** Options of {@link mountApp} and {@link appHandler}. */
export interface FastifyMountOptions extends ClientAddressOption<FastifyRequest> {
  /** The mount prefix, as given to `register` (set for you by {@link mountApp}). */
  readonly prefix?: string;
}

/**
 * The app as a Fastify handler `(request, reply)`. {@link mountApp} routes to it; pass it also as
 * the server's `frameworkErrors` option so the requests Fastify refuses before routing (a
 * malformed URL: `FST_ERR_BAD_URL`) are answered by the app, as the node adapter would.
 */
export function appHandler(
  app: App,
  options: FastifyMountOptions = {},
): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  const clientAddress = clientAddressOption(options.clientAddress, 'fastify appHandler');
  const prefix = mountPrefix(options.prefix, 'fastify appHandler');
  return async function fastifyMountedApp(request, reply) {
    const target = request.url.slice(prefix.length);
    const parsed = request.body as AsyncIterable<Uint8Array> | undefined;
    const stream = parsed !== undefined && Symbol.asyncIterator in Object(parsed) ? parsed : request.raw;
    const view = incomingView(
      request.raw,
      target === '' || target.startsWith('?') ? `/${target}` : target,
      clientAddress?.(request) ?? request.ip,
      () => stream,
      prefix,
    );
    const response = await app.handle(view);
    if (response.status === 413) response.headers.connection = 'close';
    reply.code(response.status);
    reply.headers(response.headers);
    const raw = response.raw;
    if (raw !== undefined && typeof raw !== 'string' && !(raw instanceof Uint8Array)) {
      return reply.send(Readable.from(raw));
    }
    const bytes = wireBody(response, request.method);
    return reply.send(payloadOf(bytes, response.headers));
  };
}

/**
 * A whole rest-conventions app as a Fastify plugin:
 * `await server.register(mountApp(app), { prefix: '/api' })`. Every method and path under the prefix
 * reaches the app, whose body limit and parsing apply (Fastify's parsers are bypassed); its
 * `Location` and links are given under the prefix.
 */
export function mountApp(app: App, options: Omit<FastifyMountOptions, 'prefix'> = {}): FastifyPluginAsync {
  clientAddressOption(options.clientAddress, 'fastify mountApp');
  return async (fastify: FastifyInstance) => {
    const handler = appHandler(app, { ...options, prefix: fastify.prefix });
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    fastify.all('/*', handler);
    fastify.all('/', handler);
  };
}

const NO_BYTES = Buffer.alloc(0);

/**
 * The payload to hand Fastify: bytes whenever there is a `Content-Type` (for an empty payload
 * Fastify would add `charset` to a JSON type, for empty bytes without a type `octet-stream`; `null` would be sent as JSON).
 */
function payloadOf(bytes: Uint8Array | undefined, headers: Record<string, string>): Buffer | undefined {
  if (bytes !== undefined) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return headers['content-type'] === undefined ? undefined : NO_BYTES;
}

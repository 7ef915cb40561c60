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
} from 'fastify';
import type { App } from '../../core/app.js';
import { bodyBytes, collectBody } from '../../core/response.js';
import type { ApiResponse, Context } from '../../core/types.js';
import { ApiError } from '../../errors/api-error.js';
import { renderError } from '../../errors/render.js';
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

/** One request's trip through the primitives. */
interface Trip {
  readonly ctx: Promise<Context>;
  readonly body: RecordedBody;
  /** Settles with the primitives' final answer. */
  readonly answer: Promise<ApiResponse>;
  /** Hands the route's response (from `onSend`) to the primitives. */
  respond?: (response: ApiResponse) => void;
  setCookie: readonly string[];
}

const CONTEXTS = new WeakMap<FastifyRequest, Context>();

/**
 * The rest-conventions context of a request that went through {@link conventions}: its `principal`
 * (after `authenticate`), `requestId`, and what primitives such as `decodeJsonBody` need.
 */
export function conventionsContext(request: FastifyRequest): Context | undefined {
  return CONTEXTS.get(request);
}

/** Fastify's own errors carry `statusCode`; validation errors are 400s with a readable message. */
function fromFastifyError(thrown: unknown): unknown {
  if (thrown instanceof ApiError || !(thrown instanceof Error)) return thrown;
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
 */
export function conventions(options: FastifyConventionsOptions): FastifyPluginAsync {
  const run = conventionsRunner(options, 'fastify');
  const clientAddress = clientAddressOption(options.clientAddress, 'fastify conventions');
  // Per plugin: a scope may register its own `conventions` inside an outer one.
  const TRIPS = new WeakMap<FastifyRequest, Trip>();
  const plugin = async (fastify: FastifyInstance) => {
    fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const outer = CONTEXTS.get(request);
      const body = new RecordedBody(() => request.raw);
      const view = incomingView(request.raw, request.url, clientAddress?.(request) ?? request.ip, body);
      let entered!: (ctx: Context) => void;
      const ctx = new Promise<Context>((resolve) => {
        entered = resolve;
      });
      const trip: Trip = { ctx, body, answer: Promise.resolve(undefined as never), setCookie: [] };
      const answer = run(
        view,
        (inner) =>
          new Promise<ApiResponse>((resolve) => {
            trip.respond = resolve;
            CONTEXTS.set(request, inner);
            entered(inner);
          }),
        fromFastifyError,
        outer,
      );
      (trip as { answer: Promise<ApiResponse> }).answer = answer;
      TRIPS.set(request, trip);
      const first = await Promise.race([ctx, answer]);
      if (trip.respond === undefined) {
        TRIPS.delete(request);
        return send(reply, first as ApiResponse, request.method);
      }
    });
    fastify.addHook('preParsing', async (request: FastifyRequest, _reply: FastifyReply, payload) => {
      const bytes = TRIPS.get(request)?.body.bytes();
      return bytes === undefined ? payload : Readable.from([Buffer.from(bytes)]);
    });
    fastify.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const trip = TRIPS.get(request);
      if (trip?.respond === undefined) return payload;
      TRIPS.delete(request);
      const caught = neutralHeaders(reply.getHeaders());
      delete caught.headers['content-length'];
      const raw = await payloadBytes(payload);
      trip.respond({
        status: reply.statusCode,
        headers: caught.headers,
        ...(raw === undefined ? {} : { raw }),
      });
      const response = await trip.answer;
      for (const name of Object.keys(reply.getHeaders())) reply.removeHeader(name);
      reply.code(response.status);
      reply.headers(response.headers);
      if (caught.setCookie.length > 0) reply.header('set-cookie', [...caught.setCookie]);
      const bytes = wireBody(response, request.method);
      // `undefined` from an onSend hook keeps the route's payload; `null` sends none.
      return bytes === undefined ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    });
    fastify.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
      const trip = TRIPS.get(request);
      if (trip === undefined) throw error;
      const response = renderError(fromFastifyError(error), await trip.ctx);
      reply.code(response.status);
      reply.headers(response.headers);
      return reply.send(Buffer.from(bodyBytes(response) ?? new Uint8Array()));
    });
  };
  return unencapsulated(plugin);
}

async function payloadBytes(payload: unknown): Promise<Uint8Array | undefined> {
  if (payload === undefined || payload === null) return undefined;
  if (typeof payload === 'string') return Buffer.from(payload);
  if (payload instanceof Uint8Array) return payload;
  if (payload instanceof Readable) return collectBody({ status: 200, headers: {}, raw: payload });
  return Buffer.from(JSON.stringify(payload));
}

function send(reply: FastifyReply, response: ApiResponse, method: string): FastifyReply {
  reply.code(response.status);
  reply.headers(response.headers);
  const bytes = wireBody(response, method);
  return reply.send(payloadOf(bytes, response.headers));
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

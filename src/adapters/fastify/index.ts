/**
 * `rest-conventions/adapters/fastify`: the primitives as a Fastify 5 plugin (`conventions`: the way in at
 * `onRequest`, the body handed on at `preParsing`, the way out at `onSend`, errors through the
 * error handler), and a whole rest-conventions app mounted under a prefix (`mountApp`). Fastify is
 * an optional peer dependency, imported for its types only. See `docs/adapters.md`.
 */
import { Readable } from 'node:stream';
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RequestPayload,
} from 'fastify';
import { bodyBytes, collectBody } from '../../core/response.js';
import { renderError } from '../../errors/render.js';
import type { ApiResponse, Context } from '../../http/types.js';
import { conventionsRunner, neutralHeaders, RecordedBody } from '../conventions.js';
import { frameworkBody } from '../framework-body.js';
import { clientAddressOption, incomingView, wireBody } from '../node-host.js';
import { type FrameworkRoute, unmatched } from '../unmatched.js';
import { PRINCIPAL } from './caller.js';
import { CONTEXT, type WithContext } from './context.js';
import { type FastifyConventionsOptions, fromFastifyError } from './errors.js';
import { asBuffer, headPayload, payloadBody, send, writeAnswer } from './replies.js';

export type { RequireCallerOptions } from '../caller.js';
export type { ConventionsOptions } from '../conventions.js';
export type { DescribedRoutes, DescribedRoutesOptions } from '../described.js';
export type { ClientAddressOption } from '../node-host.js';
export { requireCaller } from './caller.js';
export { conventionsContext } from './context.js';
export { conventionsFrameworkErrors, type FastifyConventionsOptions } from './errors.js';
export { appHandler, type FastifyMountOptions, mountApp } from './mount.js';

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

/** The routes of the instance the plugin was registered on (and its scopes), for `conventionsNotFound`. */
const ROUTES = Symbol('rest-conventions routes');

/** Per-request properties are request decorations, as the context is (see `./context.ts`). */
type Decorated = WithContext & Record<symbol, Trip | null | undefined>;
type WithRoutes = FastifyRequest & { [ROUTES]?: FrameworkRoute[] | null };

/**
 * `server.setNotFoundHandler(conventionsNotFound())`: a request no route takes is 404 `No resource
 * exists at this path.`, or 405 with `Allow` when a route registered after the `conventions` plugin has
 * the path with another method (OPTIONS: 204 with `Allow`), as error documents through the primitives,
 * rather than Fastify's own JSON (RFC 9110 sections 15.5.5 and 15.5.6).
 */
export function conventionsNotFound(): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return function fastifyConventionsNotFound(request, reply) {
    const query = request.url.indexOf('?');
    const path = query === -1 ? request.url : request.url.slice(0, query);
    const answer = unmatched((request as WithRoutes)[ROUTES] ?? [], request.method, path);
    if ('error' in answer) throw answer.error;
    return reply.code(204).header('allow', answer.options).send();
  };
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
    if (!fastify.hasRequestDecorator(ROUTES)) fastify.decorateRequest(ROUTES, null);
    if (!fastify.hasRequestDecorator(PRINCIPAL)) fastify.decorateRequest(PRINCIPAL);
    const routes: FrameworkRoute[] = [];
    fastify.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) routes.push({ method, path: route.url });
    });
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const decorated = request as Decorated;
      (request as WithRoutes)[ROUTES] ??= routes;
      const body = new RecordedBody(frameworkBody(request.raw, () => request.body));
      const view = incomingView(request.raw, request.url, clientAddress?.(request) ?? request.ip, body);
      const trip = new Trip(body);
      decorated[TRIP] = trip;
      const downstream = (inner: Context): Promise<ApiResponse> => {
        body.attach(inner);
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
        withoutMediaType(request);
        const trip = (request as Decorated)[TRIP];
        const bytes = trip?.ctx === undefined ? undefined : trip.body.readBytes(trip.ctx);
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

/**
 * A body without a `Content-Type` (absent or empty) is left unparsed, as the core leaves it: Fastify
 * would answer its own 415 before the route, even one that takes no body; `decodeJsonBody` still
 * reads it (and answers the core's 415). Fastify skips parsing a request without framing fields.
 */
function withoutMediaType(request: FastifyRequest): void {
  const { headers } = request.raw;
  if ((headers['content-type'] ?? '').trim() !== '') return;
  delete headers['content-type'];
  delete headers['content-length'];
  delete headers['transfer-encoding'];
}

type PreParsingDone = (error: Error | null, payload?: RequestPayload) => void;
type OnSendDone = (error: Error | null, payload?: unknown) => void;

export { describedRoutes } from './described.js';

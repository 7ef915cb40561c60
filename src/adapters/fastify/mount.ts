/**
 * A whole rest-conventions app inside Fastify: `appHandler` (a route handler) and `mountApp` (a
 * plugin routing every method and path under its prefix to the app). See `docs/adapters.md`.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../app/app.js';
import { originForm } from '../../http/request-target.js';
import { mountPrefix } from '../conventions.js';
import { type ClientAddressOption, clientAddressOption, incomingView, wireBody } from '../node-host.js';
import { payloadOf } from './replies.js';

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
    const target = originForm(request.url).slice(prefix.length);
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
    // Fastify refuses a QUERY without Content-Type itself, with its own 400, before any handler
    // (RFC 10008 section 2.1); the app refuses it too, with its error document, Accept-Query and
    // every layer's headers, as on the other adapters.
    fastify.addHook('onRequest', (request, reply, done) => {
      if (request.method === 'QUERY' && request.headers['content-type'] === undefined) {
        handler(request, reply).catch((error: unknown) => reply.send(error));
      } else done();
    });
    fastify.all('/*', handler);
    fastify.all('/', handler);
    // `all` is Fastify's list of methods; any other (PROPFIND, PURGE) reaches its not-found handler,
    // so the app answers it too (405 with Allow, or 404), as on every other adapter.
    fastify.setNotFoundHandler(handler);
  };
}

/**
 * Described routes in Fastify's own router: `describedRoutes(server)` after the `conventions` plugin,
 * then `.route({ method, path, params, query, body, responses, auth, handler })`. See `docs/adapters.md`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import { bodyBytes } from '../../core/response.js';
import type { ApiResponse, Params } from '../../http/types.js';
import {
  type DescribedRoutes,
  type DescribedRoutesOptions,
  describedRoutes as described,
  type FrameworkRegistration,
  outsideConventions,
} from '../described.js';
import { conventionsContext } from './context.js';

/**
 * Declared routes registered in a scope of `server` (as `@fastify/swagger` reads route schemas, the
 * library reads these declarations): the library decodes and checks the request as `createApp` does,
 * the handler gets typed `ctx.params`, `ctx.query`, `ctx.body` and `ctx.var.principal`, and its response
 * goes out through Fastify and the primitives. The scope leaves bodies unparsed for the route's own
 * decoder (JSON and JSON:API, 415 for anything else). `routes()` lists them for `openApiDocument`.
 */
export function describedRoutes(
  server: FastifyInstance,
  options: DescribedRoutesOptions = {},
): DescribedRoutes {
  if (typeof server?.register !== 'function' || typeof server.route !== 'function') {
    throw new TypeError('fastify describedRoutes: pass the Fastify instance the routes go on');
  }
  const pending: FrameworkRegistration[] = [];
  let scope: FastifyInstance | undefined;
  server.register(async (child: FastifyInstance) => {
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    scope = child;
    for (const route of pending.splice(0)) add(child, route);
  });
  return described((route) => {
    if (scope === undefined) pending.push(route);
    else add(scope, route);
  }, options);
}

function add(scope: FastifyInstance, { method, path, run }: FrameworkRegistration): void {
  const handler = async function fastifyDescribedRoute(request: FastifyRequest, reply: FastifyReply) {
    const ctx = conventionsContext(request);
    if (ctx === undefined) throw outsideConventions('fastify');
    return reply.send(payload(reply, await run(ctx, request.params as Params)));
  };
  scope.route({
    method,
    url: path,
    handler,
    ...(method === 'QUERY' ? { preParsing: queryWithoutContentType(handler) } : {}),
  });
}

/**
 * Fastify refuses a QUERY without Content-Type itself, with its own 400, between `preParsing` and the
 * handler (RFC 10008 section 2.1); the route refuses it instead, with its error document and
 * `Accept-Query`, as on the other adapters. Its primitives ran already (`onRequest`).
 */
function queryWithoutContentType(
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>,
): preParsingHookHandler {
  return (request, reply, body, done) => {
    if (request.headers['content-type'] !== undefined) done(null, body);
    else handler(request, reply).catch((error: unknown) => reply.send(error));
  };
}

function payload(reply: FastifyReply, response: ApiResponse): Buffer {
  reply.code(response.status);
  reply.headers(response.headers);
  const bytes = bodyBytes(response);
  return bytes === undefined
    ? Buffer.alloc(0)
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

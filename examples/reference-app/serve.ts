/**
 * The reference app served by any adapter: node and fetch (the library's own), or mounted in
 * Express, Fastify, Koa or Hono (`ADAPTER=express npm start`). Each returns a started node server
 * with the same bounds (header and request timeouts, idle limits, a connection cap and a
 * per-address share of it: `boundedServer`, docs/security.md).
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import type { App } from 'rest-conventions';
import { mountApp as expressMount } from 'rest-conventions/adapters/express';
import { appHandler, mountApp as fastifyMount } from 'rest-conventions/adapters/fastify';
import { nodeServerErrorResponse, toFetchHandler } from 'rest-conventions/adapters/fetch';
import { mountApp as honoMount } from 'rest-conventions/adapters/hono';
import { mountApp as koaMount } from 'rest-conventions/adapters/koa';
import {
  boundedServer,
  closeGracefully,
  createNodeServer,
  type NodeServerOptions,
} from 'rest-conventions/adapters/node';
import type { AdapterName } from './config.js';

export { ADAPTERS, type AdapterName } from './config.js';

export interface Served {
  readonly port: number;
  /** Stop accepting and close; the node adapter lets requests in flight finish for up to `timeoutMs`. */
  close(timeoutMs?: number): Promise<'drained' | 'timed-out' | undefined>;
}

/** A started server, with the node server itself (to watch its connections). */
export interface ServedServer extends Served {
  readonly server: http.Server;
}

export function listen(server: http.Server, port: number): Promise<ServedServer> {
  return new Promise((resolve) => {
    server.listen(port, () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        server,
        close: () =>
          new Promise((done) => {
            server.close(() => done(undefined));
            server.closeAllConnections();
          }),
      }),
    );
  });
}

/**
 * Serves `app` at the root of the chosen adapter on `port` (0: any free port), every adapter within
 * the same server `limits` (default: the library's defaults).
 */
export async function serve(
  adapter: AdapterName,
  app: App,
  port: number,
  limits: NodeServerOptions = {},
): Promise<ServedServer> {
  switch (adapter) {
    case 'node': {
      // Header, request and idle timeouts and a connection cap (docs/security.md), and a graceful close.
      const server = createNodeServer(app, limits);
      const served = await listen(server, port);
      return {
        port: served.port,
        server,
        close: (timeoutMs) => closeGracefully(server, { timeoutMs: timeoutMs ?? 10_000 }),
      };
    }
    case 'fetch': {
      const fetchHandler = toFetchHandler(app);
      return listen(
        boundedServer(
          getRequestListener(
            (request, env) =>
              fetchHandler(request, {
                remoteAddress: env.incoming.socket.remoteAddress,
                // The target as sent: the Request's URL has dot segments resolved (docs/security.md).
                target: env.incoming.url,
              }),
            // What @hono/node-server refuses before there is a Request: the node adapter's 400 document.
            { errorHandler: nodeServerErrorResponse },
          ),
          limits,
        ),
        port,
      );
    }
    case 'express': {
      const server = express();
      server.disable('x-powered-by');
      server.use(expressMount(app));
      return listen(boundedServer(server, limits), port);
    }
    case 'koa': {
      const server = new Koa();
      server.use(koaMount(app));
      return listen(boundedServer(server.callback(), limits), port);
    }
    case 'hono': {
      const server = new Hono();
      server.all('*', honoMount(app));
      return listen(
        boundedServer(getRequestListener(server.fetch, { errorHandler: nodeServerErrorResponse }), limits),
        port,
      );
    }
    case 'fastify': {
      let server!: http.Server;
      const fastify = Fastify({
        // Fastify answers a malformed URL itself before routing; let the app answer it instead.
        frameworkErrors: (_error, request, reply) => void appHandler(app)(request, reply),
        serverFactory: (handler) => {
          server = boundedServer(handler, limits);
          return server;
        },
      });
      await fastify.register(fastifyMount(app));
      await fastify.ready();
      const served = await listen(server, port);
      return {
        port: served.port,
        server,
        close: async () => {
          await served.close();
          await fastify.close();
          return undefined;
        },
      };
    }
  }
}

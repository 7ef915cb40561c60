/**
 * Starts one of the four framework examples, or the zod one (Hono with zod schemas), on a node
 * server (`npm run example -- <name>`).
 */
import http from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { expressShop } from '../express/server.js';
import { fastifyShop } from '../fastify/server.js';
import { honoShop } from '../hono/server.js';
import { koaShop } from '../koa/server.js';
import type { Config } from '../reference-app/config.js';
import { listen, type ServedServer } from '../reference-app/serve.js';
import { zodShop } from '../zod/server.js';

/** The bookshop written the way of each framework, with the library's codecs. */
export const EXAMPLES = ['express', 'fastify', 'koa', 'hono'] as const;
/** Every example `npm run example` serves. */
export const ALL_EXAMPLES = [...EXAMPLES, 'zod'] as const;
export type ExampleName = (typeof ALL_EXAMPLES)[number];

export async function serveExample(name: ExampleName, config: Config, port: number): Promise<ServedServer> {
  switch (name) {
    case 'express':
      return listen(http.createServer(expressShop(config)), port);
    case 'koa':
      return listen(http.createServer(koaShop(config).callback()), port);
    case 'hono':
      return listen(http.createServer(getRequestListener(honoShop(config).fetch)), port);
    case 'zod':
      return listen(http.createServer(getRequestListener(zodShop(config).fetch)), port);
    case 'fastify': {
      const app = await fastifyShop(config);
      await app.listen({ port, host: '::' });
      const address = app.server.address();
      return {
        port: typeof address === 'object' && address !== null ? address.port : port,
        server: app.server,
        close: () => app.close(),
      };
    }
  }
}

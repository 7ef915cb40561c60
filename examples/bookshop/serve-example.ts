/** Starts one of the four framework examples on a node server (`npm run example -- <framework>`). */
import http from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { expressShop } from '../express/server.js';
import { fastifyShop } from '../fastify/server.js';
import { honoShop } from '../hono/server.js';
import { koaShop } from '../koa/server.js';
import type { Config } from '../reference-app/config.js';
import { listen, type ServedServer } from '../reference-app/serve.js';

export const EXAMPLES = ['express', 'fastify', 'koa', 'hono'] as const;
export type ExampleName = (typeof EXAMPLES)[number];

export async function serveExample(name: ExampleName, config: Config, port: number): Promise<ServedServer> {
  switch (name) {
    case 'express':
      return listen(http.createServer(expressShop(config)), port);
    case 'koa':
      return listen(http.createServer(koaShop(config).callback()), port);
    case 'hono':
      return listen(http.createServer(getRequestListener(honoShop(config).fetch)), port);
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

/**
 * The client's address on every fetch runtime (issue: a Bun app put every anonymous caller in one
 * rate-limit bucket, silently). `toFetchHandler` and the Hono drivers read it from what the runtime
 * passes beside the request, in the shapes Bun, Deno and `@hono/node-server` pass, and warn once
 * when there is none. The runtimes themselves run these shapes in test/runtimes.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import { conventions, mountApp } from '../../src/adapters/hono/index.js';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import type { Middleware } from '../../src/http/types.js';
import { recordingLogger } from '../core/send.js';

/** What each runtime passes as the fetch handler's second argument, for a client at `address`. */
const RUNTIMES = [
  { runtime: 'Bun (its server)', info: (address: string) => ({ requestIP: () => ({ address, port: 1 }) }) },
  {
    runtime: 'Deno (its serve info)',
    info: (address: string) => ({ remoteAddr: { hostname: address, port: 1 } }),
  },
  {
    runtime: '@hono/node-server (its bindings)',
    info: (address: string) => ({ incoming: { socket: { remoteAddress: address } }, outgoing: {} }),
  },
  { runtime: 'a caller (info.remoteAddress)', info: (address: string) => ({ remoteAddress: address }) },
];

function echoApp() {
  const logger = recordingLogger();
  const app = createApp({ logger }).route({
    method: 'GET',
    path: '/whoami',
    handler: (ctx) => json(200, { meta: { address: ctx.request.remoteAddress ?? null } }),
  });
  return { app, logger };
}

const addressIn = async (response: Response) =>
  ((await response.json()) as { meta: { address: string | null } }).meta.address;
const request = () => new Request('http://api.example/whoami');
const warnings = (logger: ReturnType<typeof recordingLogger>) =>
  logger.entries.filter((e) => e.level === 'warn' && e.message.includes('no client address'));

describe('toFetchHandler, for the client address', () => {
  it.each(RUNTIMES)('reads it from what $runtime passes', async ({ info }) => {
    const { app, logger } = echoApp();
    const handler = toFetchHandler(app);
    expect(await addressIn(await handler(request(), info('203.0.113.7')))).toBe('203.0.113.7');
    expect(warnings(logger)).toEqual([]);
  });

  it('takes clientAddress where the runtime passes none (a Worker passes its bindings)', async () => {
    const { app, logger } = echoApp();
    const handler = toFetchHandler(app, {
      clientAddress: (r) => r.headers.get('cf-connecting-ip') ?? undefined,
    });
    const fromEdge = new Request('http://api.example/whoami', {
      headers: { 'cf-connecting-ip': '198.51.100.4' },
    });
    expect(await addressIn(await handler(fromEdge, { MY_KV: {} }))).toBe('198.51.100.4');
    expect(warnings(logger)).toEqual([]);
  });

  it("asks the runtime only when a layer reads the address, once per request (Bun's requestIP costs)", async () => {
    const logger = recordingLogger();
    const app = createApp({ logger })
      .route({ method: 'GET', path: '/quiet', handler: () => json(200, { meta: {} }) })
      .route({
        method: 'GET',
        path: '/twice',
        handler: (ctx) => {
          const first = ctx.request.remoteAddress;
          return json(200, { meta: { addresses: [first, ctx.request.remoteAddress] } });
        },
      });
    const handler = toFetchHandler(app);
    const asked: Request[] = [];
    const bun = {
      requestIP: (r: Request) => {
        asked.push(r);
        return { address: '203.0.113.9', port: 1 };
      },
    };
    expect((await handler(new Request('http://api.example/quiet'), bun)).status).toBe(200);
    expect(asked).toEqual([]);
    const twice = new Request('http://api.example/twice');
    expect(await (await handler(twice, bun)).json()).toEqual({
      meta: { addresses: ['203.0.113.9', '203.0.113.9'] },
    });
    expect(asked).toEqual([twice]);
    // Nothing asked, nothing missing: no warning for an address no layer needed.
    expect((await handler(new Request('http://api.example/quiet'), {})).status).toBe(200);
    expect(warnings(logger)).toEqual([]);
  });

  it('rejects, never throws, when clientAddress throws: the handler answers as an async function', async () => {
    const { app } = echoApp();
    const failure = new Error('no such binding');
    const handler = toFetchHandler(app, {
      clientAddress: () => {
        throw failure;
      },
    });
    let answer: Promise<Response> | undefined;
    expect(() => {
      answer = handler(request());
    }).not.toThrow();
    await expect(answer).rejects.toBe(failure);
  });

  it('warns once, through the app logger, when a request comes with no address at all', async () => {
    const { app, logger } = echoApp();
    const handler = toFetchHandler(app);
    for (const info of [undefined, { MY_KV: {} }, { requestIP: () => null }]) {
      expect(await addressIn(await handler(request(), info))).toBeNull();
    }
    expect(warnings(logger)).toHaveLength(1);
    expect(warnings(logger)[0]!.message).toContain('clientAddress');
  });
});

describe('the Hono drivers, for the client address', () => {
  const echoLayer: Middleware = async (ctx) =>
    json(200, { meta: { address: ctx.request.remoteAddress ?? null } });

  it.each(RUNTIMES.slice(0, 3))('read it from the c.env that $runtime gives Hono', async ({ info }) => {
    const logger = recordingLogger();
    const hono = new Hono();
    hono.use(conventions({ use: [echoLayer], logger }));
    expect(await addressIn(await hono.fetch(request(), info('192.0.2.9')))).toBe('192.0.2.9');
    const { app } = echoApp();
    const mounted = new Hono().all('/*', mountApp(app));
    expect(await addressIn(await mounted.fetch(request(), info('192.0.2.10')))).toBe('192.0.2.10');
    expect(warnings(logger)).toEqual([]);
  });

  it('warn once when neither the runtime nor clientAddress gives one', async () => {
    const logger = recordingLogger();
    const hono = new Hono();
    hono.use(conventions({ use: [echoLayer], logger }));
    for (let i = 0; i < 3; i++) expect(await addressIn(await hono.fetch(request(), {}))).toBeNull();
    expect(warnings(logger)).toHaveLength(1);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { defineMiddleware } from '../../src/core/compose.js';
import { contractOf } from '../../src/core/contract.js';
import { except } from '../../src/core/except.js';
import { json } from '../../src/core/response.js';
import type { Middleware } from '../../src/http/types.js';
import { rateLimit } from '../../src/ratelimit/middleware.js';
import { send } from './send.js';

const PATHS = ['/books', '/health/live', '/health/ready', '/orders'] as const;

/** An app answering every path of PATHS, behind `use`. */
function appWith(use: Middleware) {
  const app = createApp({ use: [use] });
  for (const path of PATHS) app.route({ method: 'GET', path, handler: () => json(200, { meta: { path } }) });
  return app;
}

const marking: Middleware = async (_ctx, next) => {
  const response = await next();
  response.headers['x-marked'] = 'yes';
  return response;
};
const markingHooks = defineMiddleware({
  after: (_ctx, response) => {
    response.headers['x-marked'] = 'yes';
    return response;
  },
});

describe('except', () => {
  it.each([
    ['a wrapping middleware', marking],
    ['a middleware of hooks', markingHooks],
  ])('runs %s on every request but the skipped ones (property)', async (_name, layer) => {
    await fc.assert(
      fc.asyncProperty(fc.subarray([...PATHS]), fc.constantFrom(...PATHS), async (skipped, path) => {
        const app = appWith(except(skipped, layer));
        const { status, headers } = await send(app, 'GET', path);
        expect(status).toBe(200);
        // The model: the layer ran exactly when the path is not in the list.
        expect(headers['x-marked']).toBe(skipped.includes(path) ? undefined : 'yes');
      }),
      { numRuns: 60 },
    );
  });

  it('keeps a middleware of hooks as hooks, and takes a function as the condition', async () => {
    const layer = except((ctx) => ctx.request.path.startsWith('/health/'), markingHooks);
    expect(layer).toHaveProperty('hooks');
    const app = appWith(layer);
    expect((await send(app, 'GET', '/health/ready')).headers['x-marked']).toBeUndefined();
    expect((await send(app, 'GET', '/orders')).headers['x-marked']).toBe('yes');
  });

  it('skips a real rate limiter for the health probes, which then carry no RateLimit headers', async () => {
    const limiter = rateLimit({ policies: [{ name: 'default', quota: 1, windowSeconds: 60 }] });
    const app = appWith(except(['/health/live'], limiter));
    expect((await send(app, 'GET', '/books')).status).toBe(200);
    expect((await send(app, 'GET', '/books')).status).toBe(429);
    for (let probe = 0; probe < 3; probe++) {
      const { status, headers } = await send(app, 'GET', '/health/live');
      expect(status).toBe(200);
      expect(headers).not.toHaveProperty('ratelimit');
    }
  });

  it("keeps the layer's contract, its headers no longer required", () => {
    const limiter = rateLimit({ policies: [{ name: 'default', quota: 1, windowSeconds: 60 }] });
    const promised = contractOf(limiter).flatMap((c) =>
      Object.values({ ...c.allHeaders, ...c.successHeaders }),
    );
    expect(promised.some((header) => header.required === true)).toBe(true);
    const contracts = contractOf(except(['/health/live'], limiter));
    expect(contracts.map((c) => Object.keys(c.responses ?? {}))).toEqual(
      contractOf(limiter).map((c) => Object.keys(c.responses ?? {})),
    );
    for (const contract of contracts) {
      for (const header of Object.values({ ...contract.allHeaders, ...contract.successHeaders })) {
        expect(header.required).toBe(false);
      }
    }
  });

  it('refuses a condition or middleware of another kind at start-up', () => {
    expect(() => except('/health' as never, marking)).toThrow(/except: condition/);
    expect(() => except(['health'], marking)).toThrow(/except: condition/);
    expect(() => except(['/health'], {} as never)).toThrow(/except: middleware/);
  });
});

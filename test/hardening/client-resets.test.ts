import http from 'node:http';
import Koa from 'koa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXAMPLES, serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { ADAPTERS, listen, type ServedServer, serve } from '../../examples/reference-app/serve.js';
import { isClientDisconnect } from '../../src/adapters/client-disconnect.js';
import { mountApp } from '../../src/adapters/koa/index.js';
import { bearer, type memoryLogger, referenceApp } from '../support/reference-app.js';
import { scenarios, stderrLines } from './client-disconnects.js';

/**
 * A client that resets, aborts or breaks the pipe is nothing to log (issue 41, finding 1): no
 * adapter, in the set-ups the docs show, writes a line about it, let alone a stack. Koa's default
 * `error` listener printed `ECONNRESET` with its frames for each one. Raw sockets, on the reference
 * app through all six adapters (the app mounted) and on the four framework examples (the
 * primitives as the framework's middleware).
 */

let output: ReturnType<typeof stderrLines>;
beforeEach(() => {
  output = stderrLines();
});
afterEach(() => output.restore());

let alice = '';
beforeAll(async () => {
  alice = await bearer('1');
});

describe.each(ADAPTERS.map((adapter) => ({ adapter })))(
  'the reference app through $adapter',
  ({ adapter }) => {
    let served: ServedServer;
    let logger: ReturnType<typeof memoryLogger>;
    beforeAll(async () => {
      const built = referenceApp();
      logger = built.logger;
      served = await serve(adapter, built.app, 0);
    });
    afterAll(() => served.close(0));

    it.each(Object.entries(scenarios(() => alice)))('logs nothing for %s', async (_name, leave) => {
      await leave(served);
      // The server still answers, and its answer comes after whatever the reset set off.
      const after = await fetch(`http://127.0.0.1:${served.port}/books/1`);
      expect(after.status).toBe(200);
      expect(output.lines).toEqual([]);
      expect(logger.entries).toEqual([]);
    });
  },
);

describe.each(EXAMPLES.map((example) => ({ example })))(
  'the $example example (the primitives as middleware)',
  ({ example }) => {
    let served: ServedServer;
    beforeAll(async () => {
      served = await serveExample(example, configFromEnv({ RATE_LIMIT_MAX: '100000' }), 0);
    });
    afterAll(() => served.close());

    it.each(Object.entries(scenarios(() => alice)))('logs nothing for %s', async (_name, leave) => {
      await leave(served);
      const after = await fetch(`http://127.0.0.1:${served.port}/books/1`);
      expect(after.status).toBe(200);
      expect(output.lines).toEqual([]);
    });
  },
);

describe("Koa's error listeners, around the client disconnects left out", () => {
  /** A Koa app whose middleware before the mounted app throws `thrown`, on `/fail`. */
  async function koaServer(thrown: Error, own?: (error: Error) => void) {
    const app = new Koa();
    if (own !== undefined) app.on('error', own);
    app.use((ctx, next) => {
      if (ctx.path === '/fail') throw thrown;
      return next();
    });
    app.use(mountApp(referenceApp().app));
    return listen(http.createServer(app.callback()), 0);
  }

  it("still prints any other error with Koa's default listener, an upstream reset included", async () => {
    for (const thrown of [
      new Error('a bug'),
      Object.assign(new Error('upstream reset'), { code: 'ECONNRESET' }),
    ]) {
      const served = await koaServer(thrown);
      try {
        await fetch(`http://127.0.0.1:${served.port}/books/1`);
        expect((await fetch(`http://127.0.0.1:${served.port}/fail`)).status).toBe(500);
        expect(output.lines.join('\n')).toContain(thrown.message);
      } finally {
        await served.close();
      }
    }
  });

  it('leaves a listener of your own alone: it gets every error', async () => {
    const errors: Error[] = [];
    const served = await koaServer(new Error('a bug'), (error) => errors.push(error));
    try {
      await scenarios(() => alice)['half a body, then a reset'](served);
      expect((await fetch(`http://127.0.0.1:${served.port}/fail`)).status).toBe(500);
      expect(errors.map((error) => isClientDisconnect(error))).toEqual([true, false]);
      expect(output.lines).toEqual([]);
    } finally {
      await served.close();
    }
  });
});

describe('isClientDisconnect', () => {
  it.each(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED'])(
    'is true for %s',
    (code) => {
      expect(isClientDisconnect(Object.assign(new Error('gone'), { code }))).toBe(true);
    },
  );

  it.each([
    new Error('boom'),
    Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
    'ECONNRESET',
    undefined,
  ])('is false for %s', (error) => {
    expect(isClientDisconnect(error)).toBe(false);
  });
});

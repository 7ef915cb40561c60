import { describe, expect, it } from 'vitest';
import { compose, defineMiddleware } from '../../src/core/compose.js';
import { RequestContext } from '../../src/core/context.js';
import { json } from '../../src/core/response.js';
import { renderError } from '../../src/errors/render.js';
import { earlyResponse } from '../../src/http/middleware-hooks.js';
import type { ApiResponse, Middleware } from '../../src/http/types.js';
import { requestView } from '../support/request.js';
import { recordingLogger } from './send.js';

const context = () => new RequestContext(requestView('GET', '/books'), 'req-1', recordingLogger());

/** A layer that keeps the order it was entered in and writes it on the way out. */
function counter(name: string, entered: { count: number }, wait: boolean) {
  return defineMiddleware<RequestContext, { readonly seq: number }>({
    before: () => {
      const state = { seq: ++entered.count };
      return wait ? Promise.resolve(state) : state;
    },
    after: (_ctx, response, state) => {
      response.headers[`x-${name}`] = String(state?.seq);
      return response;
    },
  });
}

describe('state between hooks', () => {
  describe('when before returns a value that is not a response', () => {
    it.each([
      [false, false],
      [true, false],
      [false, true],
    ])('hands it to the same layer’s after (first waits: %s, second waits: %s)', async (waitA, waitB) => {
      const entered = { count: 0 };
      const layers = [counter('a', entered, waitA), counter('b', entered, waitB)];
      const run = compose(layers, () => json(200, {}), renderError);
      const response = await run(context());
      expect(response.headers['x-a']).toBe('1');
      expect(response.headers['x-b']).toBe('2');
    });

    it('keeps states apart when one instance is used at two layers, around a wrapping middleware', async () => {
      const entered = { count: 0 };
      const layer = counter('same', entered, false);
      const seen: string[] = [];
      const wrap: Middleware<RequestContext> = async (_ctx, next) => {
        const response = await next();
        seen.push(response.headers['x-same']!);
        return response;
      };
      const run = compose([layer, wrap, layer], () => json(200, {}), renderError);
      const response = await run(context());
      // The inner layer wrote its own state (2) first; the outer one overwrote with its own (1).
      expect(seen).toEqual(['2']);
      expect(response.headers['x-same']).toBe('1');
    });

    it('also works when the middleware is called as a plain (ctx, next) function', async () => {
      const entered = { count: 0 };
      const layer = counter('plain', entered, true);
      const response = await layer(context(), async () => json(200, {}));
      expect(response.headers['x-plain']).toBe('1');
    });
  });

  describe('when before returns state shaped like a response', () => {
    it.each([false, true])('keeps it as state, never sends it (waits: %s)', async (wait) => {
      const states: unknown[] = [];
      const state = { status: 1, headers: {} };
      const layer = defineMiddleware<RequestContext, typeof state>({
        before: () => (wait ? Promise.resolve(state) : state),
        after: (_ctx, response, kept) => {
          states.push(kept);
          return response;
        },
      });
      const run = compose([layer], () => json(200, { meta: { handled: true } }), renderError);
      const response = await run(context());
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ meta: { handled: true } });
      expect(states).toEqual([state]);
      // The same through the (ctx, next) form every hooked middleware also is.
      const plain = await layer(context(), async () => json(200, {}));
      expect(plain.status).toBe(200);
    });
  });

  describe('when before returns earlyResponse(response)', () => {
    it('answers with it and skips this layer’s after', async () => {
      const afterCalls: ApiResponse[] = [];
      const layer = defineMiddleware({
        before: () => earlyResponse(json(304, undefined)),
        after: (_ctx, response) => {
          afterCalls.push(response);
          return response;
        },
      });
      const run = compose([layer], () => json(200, {}), renderError);
      expect((await run(context())).status).toBe(304);
      expect(afterCalls).toEqual([]);
    });
  });

  describe('when before returns nothing', () => {
    it('gives after an undefined state', async () => {
      const states: unknown[] = [];
      const layer = defineMiddleware<RequestContext, number>({
        before: () => undefined,
        after: (_ctx, response, state) => {
          states.push(state);
          return response;
        },
      });
      await compose([layer], () => json(200, {}), renderError)(context());
      expect(states).toEqual([undefined]);
    });
  });
});

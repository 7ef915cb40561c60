import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { compose } from '../../src/core/compose.js';
import { RequestContext } from '../../src/core/context.js';
import { json, noContent } from '../../src/core/response.js';
import { ApiError } from '../../src/errors/api-error.js';
import { renderError } from '../../src/errors/render.js';
import type { ApiResponse, Context, Middleware } from '../../src/http/types.js';
import { requestView } from '../support/request.js';
import { recordingLogger, send } from './send.js';

const context = () => new RequestContext(requestView('GET', '/books'), 'req-1', recordingLogger());

function tracing(name: string, trail: string[]): Middleware {
  return async function trace(_ctx, next) {
    trail.push(`${name} in`);
    const response = await next();
    trail.push(`${name} out`);
    response.headers[`x-${name}`] = 'seen';
    return response;
  };
}

describe('compose', () => {
  describe('when several middleware are composed', () => {
    it('runs them outermost first and unwinds in reverse', async () => {
      const trail: string[] = [];
      const run = compose(
        [tracing('a', trail), tracing('b', trail), tracing('c', trail)],
        () => {
          trail.push('handler');
          return noContent();
        },
        renderError,
      );
      const response = await run(context());
      expect(trail).toEqual(['a in', 'b in', 'c in', 'handler', 'c out', 'b out', 'a out']);
      expect(response.headers).toMatchObject({ 'x-a': 'seen', 'x-b': 'seen', 'x-c': 'seen' });
    });

    it('lets a middleware answer without calling next', async () => {
      const trail: string[] = [];
      const shortCircuit: Middleware = async () => json(200, { meta: { from: 'middleware' } });
      const run = compose(
        [tracing('a', trail), shortCircuit, tracing('c', trail)],
        () => noContent(),
        renderError,
      );
      const response = await run(context());
      expect(response.json).toEqual({ meta: { from: 'middleware' } });
      expect(trail).toEqual(['a in', 'a out']);
    });

    it('runs application middleware before route middleware, both before the handler', async () => {
      const trail: string[] = [];
      const app = createApp({ use: [tracing('app', trail)] }).route({
        method: 'GET',
        path: '/books',
        use: [tracing('route', trail)],
        handler: () => {
          trail.push('handler');
          return json(200, { data: [] });
        },
      });
      const res = await send(app, 'GET', '/books');
      expect(trail).toEqual(['app in', 'route in', 'handler', 'route out', 'app out']);
      expect(res.headers).toMatchObject({ 'x-app': 'seen', 'x-route': 'seen' });
    });
  });

  describe('when a middleware calls next() twice', () => {
    it('rejects the second call', async () => {
      let second: unknown;
      const twice: Middleware = async (_ctx, next) => {
        const first = await next();
        second = await next().catch((error: unknown) => error);
        return first;
      };
      const run = compose([twice], () => noContent(), renderError);
      expect((await run(context())).status).toBe(204);
      expect(second).toBeInstanceOf(Error);
      expect(String(second)).toMatch(/next\(\) called more than once/);
    });

    it('renders a 500 when the rejection is not caught, and logs it', async () => {
      const logger = recordingLogger();
      const twice: Middleware = async (_ctx, next) => {
        await next();
        return next();
      };
      let handled = 0;
      const app = createApp({ use: [twice], logger }).route({
        method: 'GET',
        path: '/books',
        handler: () => {
          handled++;
          return json(200, { data: [] });
        },
      });
      const res = await send(app, 'GET', '/books');
      expect(res.status).toBe(500);
      expect(handled).toBe(1);
      expect(res.body.errors[0]).toMatchObject({ status: '500', detail: 'Internal Server Error' });
      expect(String(logger.entries[0]?.fields.err)).toMatch(/next\(\) called more than once/);
    });
  });

  describe('when a layer throws', () => {
    it('turns the throw into a response that the outer middleware still decorates', async () => {
      const trail: string[] = [];
      const failing: Middleware = async () => {
        throw new ApiError(429, { detail: 'Slow down.', headers: { 'retry-after': '3' } });
      };
      const run = compose([tracing('outer', trail), failing], () => noContent(), renderError);
      const response = await run(context());
      expect(response.status).toBe(429);
      expect(response.headers).toMatchObject({ 'x-outer': 'seen', 'retry-after': '3' });
      expect(trail).toEqual(['outer in', 'outer out']);
    });

    it('lets an outer middleware see the error response of a throwing handler', async () => {
      const seen: number[] = [];
      const observe: Middleware = async (_ctx, next) => {
        const response: ApiResponse = await next();
        seen.push(response.status);
        return response;
      };
      const app = createApp({ use: [observe], logger: recordingLogger() }).route({
        method: 'GET',
        path: '/books/{id}',
        handler: (ctx: Context<{ readonly id: string }>) => {
          throw new ApiError(404, { detail: `No book ${ctx.params.id}.` });
        },
      });
      const res = await send(app, 'GET', '/books/9');
      expect(res.status).toBe(404);
      expect(res.body.errors[0].detail).toBe('No book 9.');
      expect(seen).toEqual([404]);
    });

    it('lets an outer middleware see router errors (404, 405) as responses', async () => {
      const seen: number[] = [];
      const observe: Middleware = async (_ctx, next) => {
        const response = await next();
        seen.push(response.status);
        return response;
      };
      const app = createApp({ use: [observe] }).route({
        method: 'GET',
        path: '/books',
        handler: () => noContent(),
      });
      await send(app, 'GET', '/nothing');
      await send(app, 'POST', '/books');
      expect(seen).toEqual([404, 405]);
    });

    it('renders a synchronous throw from the terminal handler too', async () => {
      const run = compose(
        [],
        () => {
          throw new ApiError(409, { detail: 'Conflict here.' });
        },
        renderError,
      );
      expect((await run(context())).status).toBe(409);
    });
  });
});

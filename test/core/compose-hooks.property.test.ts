import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { compose, defineMiddleware } from '../../src/core/compose.js';
import { RequestContext } from '../../src/core/context.js';
import { json, noContent } from '../../src/core/response.js';
import { ApiError } from '../../src/errors/api-error.js';
import { renderError } from '../../src/errors/render.js';
import { earlyResponse } from '../../src/http/middleware-hooks.js';
import type { ApiResponse, Middleware } from '../../src/http/types.js';
import { requestView } from '../support/request.js';
import { recordingLogger } from './send.js';

const context = () => new RequestContext(requestView('GET', '/books'), 'req-1', recordingLogger());

/** What one generated layer does on the way in and on the way out. */
interface LayerPlan {
  readonly before: 'none' | 'pass' | 'answer' | 'throw';
  readonly after: 'none' | 'decorate' | 'throw';
  readonly waits: boolean;
  readonly hooked: boolean;
}

const layerPlan = fc.record({
  before: fc.constantFrom('none', 'pass', 'answer', 'throw'),
  after: fc.constantFrom('none', 'decorate', 'throw'),
  waits: fc.boolean(),
  hooked: fc.boolean(),
}) as fc.Arbitrary<LayerPlan>;

function layer(index: number, plan: LayerPlan, trail: string[]): Middleware {
  const settle = <T>(value: T): T | Promise<T> => (plan.waits ? Promise.resolve(value) : value);
  const middleware = defineMiddleware({
    ...(plan.before === 'none'
      ? {}
      : {
          before: () => {
            trail.push(`${index} in`);
            if (plan.before === 'throw') throw new ApiError(409, { detail: `layer ${index} refused` });
            return settle(
              plan.before === 'answer' ? earlyResponse(json(200, { meta: { from: index } })) : undefined,
            );
          },
        }),
    ...(plan.after === 'none'
      ? {}
      : {
          after: (_ctx: unknown, response: ApiResponse) => {
            trail.push(`${index} out ${response.status}`);
            if (plan.after === 'throw') throw new ApiError(422, { detail: `layer ${index} failed` });
            response.headers[`x-layer-${index}`] = String(response.status);
            return response;
          },
        }),
  });
  // The same middleware as a plain (ctx, next) function: compose cannot see its hooks.
  return plan.hooked ? middleware : (ctx, next) => middleware(ctx, next);
}

/**
 * The reference: the plain onion every middleware library writes, one async frame per layer, where
 * a layer's throw becomes its response and a second next() rejects.
 */
function referenceCompose(
  middleware: readonly Middleware[],
  terminal: (ctx: RequestContext) => ApiResponse,
  onError: typeof renderError,
) {
  return (ctx: RequestContext): Promise<ApiResponse> => {
    let called = -1;
    const dispatch = async (index: number): Promise<ApiResponse> => {
      if (index <= called) throw new Error('next() called more than once');
      called = index;
      try {
        return index === middleware.length
          ? terminal(ctx)
          : await middleware[index]!(ctx, () => dispatch(index + 1));
      } catch (error) {
        return onError(error, ctx);
      }
    };
    return dispatch(0);
  };
}

async function run(plans: readonly LayerPlan[], handlerThrows: boolean, hooked: boolean) {
  const trail: string[] = [];
  const layers = plans.map((plan, i) => layer(i, { ...plan, hooked: hooked && plan.hooked }, trail));
  const pipeline = (hooked ? compose : referenceCompose)(
    layers,
    () => {
      trail.push('handler');
      if (handlerThrows) throw new ApiError(404, { detail: 'No such book.' });
      return noContent();
    },
    renderError,
  );
  const response = await pipeline(context());
  return { trail, status: response.status, headers: response.headers, json: response.json };
}

describe('compose with hooked middleware', () => {
  test.prop([fc.array(layerPlan, { maxLength: 6 }), fc.boolean()], { numRuns: 500 })(
    'behaves exactly like the plain onion of the same middleware wrapped around next()',
    async (plans, handlerThrows) => {
      const wrapped = await run(plans, handlerThrows, false);
      const hooked = await run(plans, handlerThrows, true);
      expect(hooked).toEqual(wrapped);
    },
  );

  it('answers without a promise per layer: a run of synchronous hooks completes in one call', async () => {
    const seen: string[] = [];
    const pipeline = compose(
      [
        defineMiddleware({
          after: (_ctx, response) => {
            seen.push('outer');
            return response;
          },
        }),
        defineMiddleware({
          before: () => {
            seen.push('inner');
            return undefined;
          },
        }),
      ],
      () => noContent(),
      renderError,
    );
    const pending = pipeline(context());
    // Everything ran synchronously, before the promise was even awaited.
    expect(seen).toEqual(['inner', 'outer']);
    expect((await pending).status).toBe(204);
  });

  it('refuses hooks that are not functions', () => {
    expect(() => defineMiddleware({ before: 'x' as never })).toThrow(TypeError);
    expect(() => defineMiddleware({ after: 1 as never })).toThrow(TypeError);
  });
});

import { requestArbitrary } from '../operation-requests.js';
import type { PropertyFactory } from './property.js';

/** GET and HEAD are safe (RFC 9110 section 9.2.1): the same GET answers alike after both. */
export const safeMethodsProperty: PropertyFactory = (ctx) => [
  {
    id: 'safe-methods',
    name: 'GET and HEAD change nothing',
    check: () =>
      ctx.run(
        requestArbitrary(ctx.document, {
          headers: ctx.bearer(ctx.principals.a),
          ...ctx.known,
          operations: (op) => op.startsWith('GET '),
        }),
        async (g) => {
          const request = ctx.fromGenerated(g);
          const before = await ctx.send(request);
          await ctx.send({ ...request, method: 'HEAD' });
          await ctx.send(request);
          const after = await ctx.send(request);
          if (before.status !== after.status || (before.status === 200 && before.text !== after.text)) {
            ctx.fail('the same GET answered differently after GET and HEAD requests', request, after);
          }
        },
      ),
  },
];

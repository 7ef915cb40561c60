import { operationsOf } from '../discover.js';
import { requestArbitrary } from '../operation-requests.js';
import type { PropertyFactory } from './property.js';

/**
 * A deprecated operation announces it: `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and a
 * `successor-version` Link (RFC 5829).
 */
export const deprecationProperty: PropertyFactory = (ctx) => {
  const deprecated = operationsOf(ctx.document)
    .filter(([, , operation]) => operation.deprecated === true)
    .map(([path, method]) => `${method.toUpperCase()} ${path}`);
  if (deprecated.length === 0) return [];
  return [
    {
      id: 'deprecation',
      name: 'deprecated operations announce Deprecation, Sunset and a successor Link',
      check: () =>
        ctx.run(
          requestArbitrary(ctx.document, {
            headers: ctx.bearer(ctx.principals.a),
            ...ctx.known,
            valid: true,
            operations: (op) => deprecated.includes(op),
          }),
          async (g) => {
            const request = ctx.fromGenerated(g);
            const response = await ctx.send(request);
            if (response.status >= 300) return;
            for (const name of ['deprecation', 'sunset']) {
              if (response.headers[name] === undefined)
                ctx.fail(`a deprecated operation answered without ${name}`, request, response);
            }
            if (!/rel="?successor-version/.test(response.headers.link ?? ''))
              ctx.fail('a deprecated operation answered without a successor Link', request, response);
          },
        ),
    },
  ];
};

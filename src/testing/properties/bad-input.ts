import fc from 'fast-check';
import { hostileBody, hostileHeaders, hostilePath, hostileQuery } from '../convention-arbitraries.js';
import type { TargetRequest } from '../target.js';
import type { PropertyFactory } from './property.js';

type Sent = TargetRequest & { readonly valid?: boolean };

/**
 * Declared headers another property owns (deprecation, rate limits): a missing one fails that
 * property, not this one, so that each broken convention names exactly one property.
 */
const OWNED_ELSEWHERE =
  /declared header (deprecation|sunset|link|ratelimit|ratelimit-policy|retry-after) is missing$/i;

/**
 * Bad input gets a 4xx, never a 5xx (RFC 9110 section 15.5), and every answer is one the document
 * declares: its status, required headers and body schema.
 */
export const badInputProperty: PropertyFactory = (ctx) => {
  const templates = Object.keys(ctx.document.paths ?? {}).map((p) => p.replace(/\{[^}]+\}/g, '1'));
  const hostile = fc
    .tuple(
      hostilePath(templates),
      hostileQuery(),
      hostileHeaders(),
      hostileBody(),
      fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT'),
    )
    .map(
      ([path, query, headers, body, method]): Sent => ({
        method,
        path,
        query,
        headers,
        ...(method === 'GET' ? {} : { body }),
      }),
    );
  return [
    {
      id: 'bad-input',
      name: 'no bad input gets a 5xx, and only documented statuses are used',
      check: () =>
        ctx.run(
          fc.oneof(
            ctx.anyRequest.map((g): Sent => ({ ...ctx.fromGenerated(g), valid: g.valid })),
            hostile,
          ),
          async (request) => {
            const response = await ctx.send(request);
            // A request that follows the document is not bad input: a server fault on it is the
            // first property's (no stack trace, a convention document), not this one's.
            if (response.status >= 500 && request.valid !== true)
              ctx.fail(`a ${response.status} for a client's input`, request, response);
            // A server may or may not take `/books/` for `/books`; refusing it with 404 is fine.
            if (response.status === 404 && request.path.length > 1 && request.path.endsWith('/')) return;
            // 414 and 431 come from the server before any route runs (RFC 9110 section 15.5.15,
            // RFC 6585 section 5): accepted on every operation once the document declares them.
            if (ctx.frameworkStatuses.has(response.status)) return;
            const verdict = ctx.conform({
              method: request.method,
              path: request.path,
              status: response.status,
              headers: response.headers,
              body: response.text,
            });
            const problems = verdict.problems.filter((p) => !OWNED_ELSEWHERE.test(p));
            if (problems.length > 0) ctx.fail(problems.join('; '), request, response);
          },
        ),
    },
  ];
};

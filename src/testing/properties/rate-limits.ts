import { resolveRef } from '../../openapi/refs.js';
import { rateLimitFieldProblem } from '../ratelimit-fields.js';
import type { TargetRequest, TargetResponse } from '../target.js';
import type { KitContext } from './context.js';
import type { PropertyFactory } from './property.js';

/** How many times the rate-limit property sends each request in a row. */
const RATE_BURST = 6;

/**
 * Rate-limited operations announce `RateLimit` and `RateLimit-Policy` together, in the form
 * draft-ietf-httpapi-ratelimit-headers-11 defines (see `rateLimitFieldProblem`), and a 429 carries
 * `Retry-After` (RFC 6585 section 4).
 */
export const rateLimitsProperty: PropertyFactory = (ctx) => [
  {
    id: 'rate-limits',
    name: 'rate-limited operations announce RateLimit and RateLimit-Policy (draft-11), and a 429 carries Retry-After',
    check: () =>
      ctx.run(ctx.anyRequest, async (g) => {
        const request = ctx.fromGenerated(g);
        // The same request in a burst, as a client retrying would send it: every answer is checked.
        for (let i = 0; i < RATE_BURST; i++) checkRateHeaders(ctx, request, await ctx.sendOnce(request));
      }),
  },
];

function checkRateHeaders(ctx: KitContext, request: TargetRequest, response: TargetResponse): void {
  const operation = ctx.match(request.method, request.path);
  // Rate-limited: the document requires RateLimit on the operation's 2xx answers.
  const declared =
    operation !== undefined &&
    Object.entries(operation.operation.responses).some(
      ([status, r]) =>
        status.startsWith('2') &&
        Object.entries(resolveRef(ctx.document, r).headers ?? {}).some(
          ([h, header]) =>
            h.toLowerCase() === 'ratelimit' && resolveRef(ctx.document, header).required === true,
        ),
    );
  const sent = ['ratelimit', 'ratelimit-policy'].filter((h) => response.headers[h] !== undefined);
  if ((declared && response.status < 300 && sent.length < 2) || sent.length === 1)
    ctx.fail('a rate-limited operation answered without RateLimit and RateLimit-Policy', request, response);
  if (sent.length === 2) {
    const problem = rateLimitFieldProblem(response.headers['ratelimit-policy']!, response.headers.ratelimit!);
    if (problem !== undefined) ctx.fail(problem, request, response);
  }
  if (response.status === 429 && response.headers['retry-after'] === undefined)
    ctx.fail('a 429 without Retry-After', request, response);
}

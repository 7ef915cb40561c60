import { documentProblems } from '../response-checks.js';
import type { PropertyFactory } from './property.js';

/** Every response is a JSON:API or RFC 9457 document with security headers, caching and no internals. */
export const documentsProperty: PropertyFactory = (ctx) => [
  {
    id: 'documents',
    name: 'every response is a convention document with security headers, caching and no internals',
    check: () =>
      ctx.run(ctx.anyRequest, async (g) => {
        const request = ctx.fromGenerated(g);
        const response = await ctx.send(request);
        const problems = documentProblems(response, request.method, ctx.relaxed);
        if (problems.length > 0) ctx.fail(problems.join('; '), request, response);
      }),
  },
];

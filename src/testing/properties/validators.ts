import fc from 'fast-check';
import { documentProblems } from '../response-checks.js';
import type { TargetRequest } from '../target.js';
import type { PropertyFactory } from './property.js';

/**
 * A created resource keeps its validators (RFC 9110 section 13): the current ETag gets an empty 304
 * with the security headers, a stale If-Match 412 without change, no If-Match 428 (RFC 6585
 * section 3), and an update a new ETag.
 */
export const validatorsProperty: PropertyFactory = (ctx) =>
  ctx.creates.map((hint) => ({
    id: 'validators',
    name: `a resource made by POST ${hint.path} keeps its validators: 304, 412 without change, 428`,
    check: () =>
      ctx.run(
        fc.constant(null),
        async () => {
          const { path, read } = await ctx.createdByA(hint);
          const got = await ctx.send(read);
          const etag = got.headers.etag;
          if (etag === undefined) return;
          const conditional = { ...read, headers: { ...read.headers, 'if-none-match': etag } };
          const cached = await ctx.send(conditional);
          if (cached.status !== 304 || cached.text !== '')
            ctx.fail('a GET with the current ETag did not get an empty 304', conditional, cached);
          const missing304 = documentProblems(
            { ...cached, headers: { 'cache-control': 'x', ...cached.headers } },
            'GET',
            ctx.relaxed,
          ).filter((p) => p.startsWith('security'));
          if (missing304.length > 0) ctx.fail(missing304.join('; '), conditional, cached);
          if (hint.update === undefined || ctx.match('PATCH', path) === undefined) return;
          const patch = (headers: Record<string, string>): TargetRequest => ({
            method: 'PATCH',
            path,
            headers: { ...ctx.bearer(ctx.principals.a), 'content-type': 'application/json', ...headers },
            body: JSON.stringify(hint.update),
          });
          const staleRequest = patch({ 'if-match': '"certainly-stale"' });
          const stale = await ctx.send(staleRequest);
          if (stale.status !== 412)
            ctx.fail('a PATCH with a stale If-Match did not get 412', staleRequest, stale);
          const unchanged = await ctx.send(read);
          if (unchanged.text !== got.text) ctx.fail('a refused PATCH changed the resource', read, unchanged);
          const blind = await ctx.send(patch({}));
          if (blind.status !== 428) ctx.fail('a PATCH without If-Match did not get 428', patch({}), blind);
          const applied = await ctx.send(patch({ 'if-match': etag }));
          if (applied.status !== 200)
            ctx.fail('a PATCH with the current ETag failed', patch({ 'if-match': etag }), applied);
          const changed = await ctx.send(read);
          if (changed.headers.etag === etag)
            ctx.fail('the ETag did not change when the resource did', read, changed);
        },
        1,
      ),
  }));

import fc from 'fast-check';
import type { TargetRequest, TargetResponse } from '../target.js';
import type { PropertyFactory } from './property.js';

/** PATCH with the same body and DELETE are idempotent (RFC 9110 section 9.2.2): twice is once. */
export const idempotentWritesProperty: PropertyFactory = (ctx) =>
  ctx.creates.map((hint) => ({
    id: 'idempotent-writes',
    name: `PATCH and DELETE on what POST ${hint.path} makes are idempotent`,
    check: () =>
      ctx.run(
        fc.constant(null),
        async () => {
          const { path, read } = await ctx.createdByA(hint);
          if (hint.update !== undefined && ctx.match('PATCH', path) !== undefined) {
            const twice: TargetResponse[] = [];
            for (let i = 0; i < 2; i++) {
              const etag = (await ctx.send(read)).headers.etag;
              await ctx.send({
                method: 'PATCH',
                path,
                headers: {
                  ...ctx.bearer(ctx.principals.a),
                  'content-type': 'application/json',
                  ...(etag ? { 'if-match': etag } : {}),
                },
                body: JSON.stringify(hint.update),
              });
              twice.push(await ctx.send(read));
            }
            if (attributesOf(twice[0]!) !== attributesOf(twice[1]!))
              ctx.fail('the same PATCH twice left different states', read, twice[1]);
          }
          if (ctx.match('DELETE', path) === undefined) return;
          const del: TargetRequest = { method: 'DELETE', path, headers: ctx.bearer(ctx.principals.a) };
          const first = await ctx.send(del);
          const second = await ctx.send(del);
          if (first.status !== second.status)
            ctx.fail(`DELETE answered ${first.status} then ${second.status}`, del, second);
          if (first.status >= 300) return;
          const gone = await ctx.send(read);
          if (gone.status !== 404 && gone.status !== 410)
            ctx.fail('the resource is still there after DELETE', read, gone);
        },
        1,
      ),
  }));

function attributesOf(response: TargetResponse): string {
  try {
    return JSON.stringify(
      (JSON.parse(response.text) as { data?: { attributes?: unknown } }).data?.attributes ?? null,
    );
  } catch {
    return response.text;
  }
}

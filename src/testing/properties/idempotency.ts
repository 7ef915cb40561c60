import fc from 'fast-check';
import { idempotencyKey } from '../convention-arbitraries.js';
import type { PropertyFactory } from './property.js';

/**
 * A POST with an Idempotency-Key (draft-ietf-httpapi-idempotency-key-header section 2) is answered
 * once: a retry replays the first answer, another body under the key is 422, concurrent retries make
 * one resource.
 */
export const idempotencyProperty: PropertyFactory = (ctx) =>
  ctx.creates.map((hint) => ({
    id: 'idempotency',
    name: `POST ${hint.path} with an Idempotency-Key is replayed, refused with 422 for another body, and runs once under concurrent retries`,
    check: async () => {
      await ctx.mustCreate(hint, ctx.principals.a);
      await ctx.run(
        fc.tuple(idempotencyKey(), fc.integer({ min: 2, max: 6 })),
        async ([drawn, copies]) => {
          const a = ctx.principals.a;
          // Unique to this run: a replayed seed draws the same keys, which the server still holds
          // for the requests of the earlier run (another body, or another operation: 422).
          const key = unique(drawn);
          const made = await ctx.creation(hint, a);
          const first = await ctx.create(made, a, key);
          if (first.response.status !== 201)
            ctx.fail('a POST with a fresh key did not create', first.request, first.response);
          const again = await ctx.create(made, a, key);
          if (
            again.response.status !== first.response.status ||
            again.location !== first.location ||
            again.response.text !== first.response.text
          ) {
            ctx.fail(
              'a retry with the same key was not replayed as the first answer',
              again.request,
              again.response,
            );
          }
          if (again.response.headers['idempotent-replayed'] === undefined)
            ctx.fail('a replay does not say Idempotent-Replayed', again.request, again.response);
          if (hint.otherBody !== undefined) {
            const other = await ctx.create(made, a, key, hint.otherBody);
            if (other.response.status !== 422)
              ctx.fail(
                'the same key with another body was not refused with 422',
                other.request,
                other.response,
              );
          }
          const fresh = `${key.replace(/"/g, '')}-c`;
          const another = await ctx.creation(hint, a);
          const racing = await Promise.all(
            Array.from({ length: copies }, () => ctx.create(another, a, fresh)),
          );
          const locations = new Set(racing.filter((r) => r.response.status === 201).map((r) => r.location));
          if (locations.size !== 1)
            ctx.fail(
              `${copies} concurrent retries with one key created ${locations.size} resources`,
              racing[0]!.request,
              racing[0]!.response,
            );
        },
        Math.min(ctx.numRuns, 10),
      );
    },
  }));

/** `key` made unique to this run, in its own form (a structured-field string stays one). */
function unique(key: string): string {
  const nonce = crypto.randomUUID().slice(0, 8);
  return key.startsWith('"') ? `"${nonce}-${key.slice(1)}` : `${nonce}-${key}`;
}

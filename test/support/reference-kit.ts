import { MOVED_URLS } from '../../examples/reference-app/composition-root.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import type { KitOptions } from '../../src/testing/index.js';
import { bearer } from './reference-app.js';

/** The scope the reference app asks of a reader of its standards (`GET`, `QUERY`). */
export const READ_SCOPE = 'standards:read';

/** A development token for `sub` (with `scope`), without the `Bearer ` scheme (as the kit and its CLI take it). */
export async function rawToken(sub: string, scope?: string): Promise<string> {
  return (await bearer(sub, scope)).replace(/^Bearer /, '');
}

/**
 * The kit's options for the reference app reached through `target`: its own document, users 1 and 2,
 * the orders it may create, its moved URL and versions. `bounds` sets runs, seed and time.
 */
export async function referenceKitOptions(
  target: KitOptions['target'],
  bounds: Pick<KitOptions, 'numRuns' | 'seed' | 'timeLimitMs'> = {},
): Promise<KitOptions> {
  const document = JSON.parse(
    (await target.send({ method: 'GET', path: '/openapi.json' })).text,
  ) as OpenApiDocument;
  return {
    target,
    document,
    // The standards need a scope to be read: without it their QUERY would not be checked.
    principals: { a: await rawToken('1', READ_SCOPE), b: await rawToken('2', READ_SCOPE) },
    subjects: { a: '1', b: '2' },
    creates: [
      {
        path: '/orders',
        body: { bookId: 1, quantity: 1 },
        otherBody: { bookId: 1, quantity: 2 },
        update: { quantity: 3 },
        nested: (id, sub) => [`/users/${sub}/orders/${id}`],
      },
    ],
    moved: MOVED_URLS,
    versions: ['1', '2'],
    timeLimitMs: 5_000,
    ...bounds,
  };
}

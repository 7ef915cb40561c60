import { MOVED_URLS } from '../../examples/reference-app/composition-root.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import type { KitOptions } from '../../src/testing/index.js';
import { bearer } from './reference-app.js';

/** A development token for `sub`, without the `Bearer ` scheme (as the kit and its CLI take it). */
export async function rawToken(sub: string): Promise<string> {
  return (await bearer(sub)).replace(/^Bearer /, '');
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
    principals: { a: await rawToken('1'), b: await rawToken('2') },
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

/**
 * `test.prop(arbitraries, parameters)(name, predicate, timeout)`: a fast-check property as one vitest
 * test, named exactly `name`. Unlike `@fast-check/vitest`, the run's seed is not part of the name, so
 * every run of a commit names the same tests; the seed is fast-check's global one, fixed for
 * `npm test` by `test/support/fixed-seed.ts` (docs/testing.md, "Reproducible runs").
 */
import fc from 'fast-check';
import { it } from 'vitest';

type Predicate<Ts extends unknown[]> = (...values: Ts) => unknown;

function prop<Ts extends [unknown, ...unknown[]]>(
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  parameters: fc.Parameters<Ts> = {},
) {
  return (name: string, predicate: Predicate<Ts>, timeout?: number) =>
    it(
      name,
      () =>
        fc.assert(
          fc.asyncProperty(...(arbitraries as unknown as [fc.Arbitrary<unknown>]), async (...values) => {
            const verdict = await predicate(...(values as unknown as Ts));
            // A predicate may answer `false` for "does not hold", as fast-check's own properties do.
            if (verdict === false) throw new Error('the property returned false');
          }) as unknown as fc.IAsyncProperty<Ts>,
          parameters,
        ),
      timeout,
    );
}

export const test = { prop };
export { fc };

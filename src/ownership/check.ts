import type { Params, Principal } from '../core/types.js';
import { type LevelFact, nextOwnershipStep } from './decision.js';
import type { OwnedPath } from './owned-path.js';

/** The outcome of checking one request against an owned path. */
export type OwnershipResult<Records extends readonly unknown[]> =
  | { readonly outcome: 'allow'; readonly records: Records }
  | { readonly outcome: 'unauthenticated'; readonly status: 401 }
  | { readonly outcome: 'forbidden'; readonly status: 403 }
  | {
      readonly outcome: 'not-found';
      readonly status: 404;
      /** The level that failed (0 = the top-level parent), its noun and the id asked for. */
      readonly level: number;
      readonly noun: string;
      readonly id: string;
    };

/**
 * Run the ownership check for one request: asks {@link nextOwnershipStep} what to do, calls the
 * access rule and each loader as told (each at most once, outermost first, none after a denial) and
 * returns the decision with the loaded records. Store-agnostic: the path's loaders do the I/O.
 * A loader answering `undefined` or `null` means absent; a loader that throws fails the request.
 *
 * @example
 * const result = await checkOwnership(userOrder, ctx.principal, ctx.params);
 * if (result.outcome === 'allow') { const [user, order] = result.records; }
 */
export async function checkOwnership<Records extends readonly unknown[]>(
  path: OwnedPath<Records, string>,
  principal: Principal | undefined,
  params: Params,
): Promise<OwnershipResult<Records>> {
  const { levels } = path;
  const facts: LevelFact[] = [];
  const records: unknown[] = [];
  let mayAccessParent: boolean | undefined;
  for (;;) {
    const step = nextOwnershipStep({
      depth: levels.length,
      authenticated: principal !== undefined,
      levels: facts,
      ...(mayAccessParent === undefined ? {} : { mayAccessParent }),
    });
    switch (step.kind) {
      case 'allow':
        return { outcome: 'allow', records: records as unknown as Records };
      case 'deny': {
        if (step.reason === 'unauthenticated') return { outcome: 'unauthenticated', status: 401 };
        if (step.reason === 'forbidden') return { outcome: 'forbidden', status: 403 };
        const level = levels[step.level]!;
        return {
          outcome: 'not-found',
          status: 404,
          level: step.level,
          noun: level.noun,
          id: paramOf(params, level.param),
        };
      }
      case 'check-access':
        mayAccessParent = (await path.access(principal!, paramOf(params, levels[0]!.param), params)) === true;
        break;
      case 'load': {
        const level = levels[step.level]!;
        const parent = records[step.level - 1];
        const record = await level.load(paramOf(params, level.param), parent);
        if (record === undefined || record === null) facts.push('absent');
        else if (level.belongsTo !== undefined && level.belongsTo(record, parent) !== true)
          facts.push('foreign');
        else {
          facts.push('present');
          records.push(record);
        }
        break;
      }
    }
  }
}

function paramOf(params: Params, name: string): string {
  const value = params[name];
  if (value === undefined) throw new Error(`ownership: the route has no {${name}} parameter`);
  return value;
}

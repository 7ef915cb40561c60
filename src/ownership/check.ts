import { isPromise } from '../core/maybe-promise.js';
import type { Inputs, Principal } from '../http/types.js';
import { type LevelFact, nextOwnershipStep, type OwnershipFacts } from './decision.js';
import type { OwnedLevel, OwnedPath } from './owned-path.js';

/** The outcome of checking one request against an owned path. */
export type OwnershipResult<Records extends readonly unknown[]> =
  | { readonly outcome: 'allow'; readonly records: Records }
  | { readonly outcome: 'unauthenticated'; readonly status: 401 }
  | { readonly outcome: 'forbidden'; readonly status: 403 }
  | {
      readonly outcome: 'not-found';
      readonly status: 404;
      /** The level that failed (0 = the top-level parent), its noun and the id asked for, as text. */
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
 * const result = await checkOwnership(userOrder, ctx.var.principal, ctx.params);
 * if (result.outcome === 'allow') { const [user, order] = result.records; }
 */
export async function checkOwnership<Records extends readonly unknown[]>(
  path: OwnedPath<Records, string, object, object>,
  principal: Principal | undefined,
  params: Inputs,
): Promise<OwnershipResult<Records>> {
  return decideOwnership(path, principal, params);
}

/**
 * {@link checkOwnership}, waiting only where the access rule or a loader returns a promise (or any
 * thenable): the guard's way, so a path whose loaders answer at once costs no promise. Throws where
 * `checkOwnership` rejects.
 */
export function decideOwnership<Records extends readonly unknown[]>(
  path: OwnedPath<Records, string, object, object>,
  principal: Principal | undefined,
  params: Inputs,
): OwnershipResult<Records> | Promise<OwnershipResult<Records>> {
  const { levels } = path;
  // One facts object for the whole check, appended to as the steps are taken.
  const levelFacts: LevelFact[] = [];
  const facts: { -readonly [K in keyof OwnershipFacts]: OwnershipFacts[K] } = {
    depth: levels.length,
    authenticated: principal !== undefined,
    levels: levelFacts,
  };
  const records: unknown[] = [];
  const grant = (answer: unknown): void => {
    facts.mayAccessParent = answer === true;
  };
  const found = (level: OwnedLevel, parent: unknown, record: unknown): void => {
    if (record === undefined || record === null) levelFacts.push('absent');
    else if (level.belongsTo !== undefined && level.belongsTo(record, parent) !== true)
      levelFacts.push('foreign');
    else {
      levelFacts.push('present');
      records.push(record);
    }
  };
  const proceed = (): OwnershipResult<Records> | Promise<OwnershipResult<Records>> => {
    for (;;) {
      const step = nextOwnershipStep(facts);
      switch (step.kind) {
        case 'allow':
          return { outcome: 'allow', records: records as unknown as Records };
        case 'deny': {
          if (step.reason === 'unauthenticated') return UNAUTHENTICATED;
          if (step.reason === 'forbidden') return FORBIDDEN;
          const level = levels[step.level]!;
          return {
            outcome: 'not-found',
            status: 404,
            level: step.level,
            noun: level.noun,
            id: String(paramOf(params, level.param)),
          };
        }
        case 'check-access': {
          const answer = path.access(principal!, String(paramOf(params, levels[0]!.param)), params);
          if (isThenable(answer)) {
            return Promise.resolve(answer).then((settled) => {
              grant(settled);
              return proceed();
            });
          }
          grant(answer);
          break;
        }
        case 'load': {
          const level = levels[step.level]!;
          const parent = records[step.level - 1];
          const record = level.load(paramOf(params, level.param), parent);
          if (isThenable(record)) {
            return Promise.resolve(record).then((settled) => {
              found(level, parent, settled);
              return proceed();
            });
          }
          found(level, parent, record);
          break;
        }
      }
    }
  };
  return proceed();
}

const UNAUTHENTICATED = Object.freeze({ outcome: 'unauthenticated', status: 401 } as const);
const FORBIDDEN = Object.freeze({ outcome: 'forbidden', status: 403 } as const);

/** A promise, or anything `await` would wait for: a record is never mistaken for one. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    isPromise(value) ||
    (typeof value === 'object' &&
      value !== null &&
      typeof (value as PromiseLike<unknown>).then === 'function')
  );
}

/** A level's id as the route decoded it (the string where it has no codec). */
function paramOf(params: Inputs, name: string): unknown {
  const value = params[name];
  if (value === undefined) throw new Error(`ownership: the route has no {${name}} parameter`);
  return value;
}

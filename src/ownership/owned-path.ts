import { type Context, type ContextKey, contextKey } from '../http/types.js';
import type { AccessRule } from './access.js';

/** Loads a record by its raw path id; `undefined` (or a malformed id) means absent. */
export type Loader<R, Parent> = (id: string, parent: Parent) => R | undefined | Promise<R | undefined>;

/** The top-level parent of a nested path: `/users/{id}`. */
export interface ParentLevel<R, N extends string> {
  /** The route parameter holding its id. */
  readonly param: N;
  /** The noun used in error details (`No user with id "7".`). Default `resource`. */
  readonly noun?: string;
  readonly load: (id: string) => R | undefined | Promise<R | undefined>;
  /** Who may access it (checked before it is loaded). */
  readonly access: AccessRule;
}

/** A level below another: `/orders/{order_id}` under `/users/{id}`. */
export interface ChildLevel<R, Parent, N extends string> {
  readonly param: N;
  readonly noun?: string;
  /** Gets the loaded parent too, so a store can look up within it; `belongsTo` is checked anyway. */
  readonly load: Loader<R, Parent>;
  /** Whether `record` belongs to `parent`. Required: existence alone is never enough (see docs/ownership.md). */
  readonly belongsTo: (record: R, parent: Parent) => boolean;
}

/** One level as the guard runs it (types erased). */
export interface OwnedLevel {
  readonly param: string;
  readonly noun: string;
  readonly load: Loader<unknown, unknown>;
  /** `undefined` for the top-level parent. */
  readonly belongsTo: ((record: unknown, parent: unknown) => boolean) | undefined;
  readonly key: ContextKey<unknown>;
}

type Last<T extends readonly unknown[]> = T extends readonly [...unknown[], infer L] ? L : never;

/** The route parameters a path needs: `ParamsFor<'id' | 'order_id'>`. */
export type ParamsFor<N extends string> = { readonly [K in N]: string };

/**
 * A nested path declared level by level, with the records the guard loaded for it. Build one with
 * {@link ownedPath}, extend it with {@link OwnedPath.child}, protect a route with `ownershipGuard`.
 */
export interface OwnedPath<Records extends readonly unknown[], Names extends string> {
  readonly levels: readonly OwnedLevel[];
  readonly access: AccessRule;
  /** One typed context key per level, under which the guard stores the loaded record. */
  readonly keys: { readonly [I in keyof Records]: ContextKey<Records[I]> };
  /** This path with one more level below its last one. */
  child<R, N extends string>(level: ChildLevel<R, Last<Records>, N>): OwnedPath<[...Records, R], Names | N>;
  /**
   * The records the guard loaded for this request, outermost first. Throws (a server error) when
   * the route has no `ownershipGuard` for this path: a wiring mistake, never a client's fault.
   */
  records(ctx: Pick<Context, 'get'>): Records;
}

function checkLevel(level: { param?: unknown; load?: unknown; noun?: unknown }, what: string): void {
  if (typeof level.param !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(level.param)) {
    throw new TypeError(`${what}: param must be a route parameter name, got ${JSON.stringify(level.param)}`);
  }
  if (typeof level.load !== 'function') throw new TypeError(`${what}: load must be a function`);
  if (level.noun !== undefined && (typeof level.noun !== 'string' || level.noun === '')) {
    throw new TypeError(`${what}: noun must be a non-empty string`);
  }
}

function build<Records extends readonly unknown[], Names extends string>(
  levels: readonly OwnedLevel[],
  access: AccessRule,
): OwnedPath<Records, Names> {
  const frozen = Object.freeze([...levels]);
  return Object.freeze({
    levels: frozen,
    access,
    keys: Object.freeze(frozen.map((level) => level.key)) as unknown as OwnedPath<Records, Names>['keys'],
    child<R, N extends string>(level: ChildLevel<R, Last<Records>, N>) {
      checkLevel(level, 'ownedPath.child');
      if (typeof level.belongsTo !== 'function') {
        throw new TypeError(
          'ownedPath.child: belongsTo is required; checking that a child exists is not enough (see docs/ownership.md)',
        );
      }
      if (frozen.some((l) => l.param === level.param)) {
        throw new TypeError(`ownedPath.child: the path already uses the parameter {${level.param}}`);
      }
      const added: OwnedLevel = {
        param: level.param,
        noun: level.noun ?? 'resource',
        load: level.load as Loader<unknown, unknown>,
        belongsTo: level.belongsTo as (record: unknown, parent: unknown) => boolean,
        key: contextKey<unknown>(`ownership: {${level.param}}`),
      };
      return build<[...Records, R], Names | N>([...frozen, added], access);
    },
    records(ctx: Pick<Context, 'get'>): Records {
      return frozen.map((level) => {
        const record = ctx.get(level.key);
        if (record === undefined) {
          throw new Error(`ownedPath: no record for {${level.param}}; is ownershipGuard on this route?`);
        }
        return record;
      }) as unknown as Records;
    },
  });
}

/**
 * Declare the top-level parent of a nested path such as `/users/{id}/orders/{order_id}`; add levels
 * below it with `.child(...)`, to any depth.
 *
 * @example
 * const userOrder = ownedPath({ param: 'id', noun: 'user', load: (id) => users.get(id),
 *     access: selfOrScope({ scopes: ['users:read'] }) })
 *   .child({ param: 'order_id', noun: 'order', load: (id) => orders.get(id),
 *     belongsTo: (order, user) => order.ownerId === user.id });
 * // in the handler, after ownershipGuard({ path: userOrder }):
 * const [user, order] = userOrder.records(ctx);
 */
export function ownedPath<R, N extends string>(parent: ParentLevel<R, N>): OwnedPath<[R], N> {
  checkLevel(parent, 'ownedPath');
  if (typeof parent.access !== 'function') throw new TypeError('ownedPath: access must be a function');
  const level: OwnedLevel = {
    param: parent.param,
    noun: parent.noun ?? 'resource',
    load: parent.load as Loader<unknown, unknown>,
    belongsTo: undefined,
    key: contextKey<unknown>(`ownership: {${parent.param}}`),
  };
  return build<[R], N>([level], parent.access);
}

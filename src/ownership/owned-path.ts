import type { AccessRule } from './access.js';

/**
 * Loads a record by its path id, as the route's `params` codec decoded it (the string where the route
 * has none); `undefined` (or an id no record could have) means absent.
 */
export type Loader<R, Parent, Id = string> = (
  id: Id,
  parent: Parent,
) => R | undefined | Promise<R | undefined>;

/** The top-level parent of a nested path: `/users/{id}`. */
export interface ParentLevel<R, N extends string, K extends string = string, Id = string> {
  /** The route parameter holding its id. */
  readonly param: N;
  /**
   * The noun used in error details (`No user with id "7".`), and the name `ownershipGuard` adds the
   * record under (`ctx.var.user`). Default `resource`.
   */
  readonly noun?: K;
  /** Loads it by its id, as the route decoded it (see {@link Loader}). */
  readonly load: (id: Id) => R | undefined | Promise<R | undefined>;
  /** Who may access it (checked before it is loaded). */
  readonly access: AccessRule;
}

/** A level below another: `/orders/{order_id}` under `/users/{id}`. */
export interface ChildLevel<R, Parent, N extends string, K extends string = string, Id = string> {
  readonly param: N;
  /** As for the parent: error details, and the record's name in `ctx.var`. Distinct per level. */
  readonly noun?: K;
  /** Gets the loaded parent too, so a store can look up within it; `belongsTo` is checked anyway. */
  readonly load: Loader<R, Parent, Id>;
  /** Whether `record` belongs to `parent`. Required: existence alone is never enough (see docs/ownership.md). */
  readonly belongsTo: (record: R, parent: Parent) => boolean;
}

/** One level as the guard runs it (types erased). */
export interface OwnedLevel {
  readonly param: string;
  readonly noun: string;
  readonly load: Loader<unknown, unknown, unknown>;
  /** `undefined` for the top-level parent. */
  readonly belongsTo: ((record: unknown, parent: unknown) => boolean) | undefined;
}

export type LastRecord<T extends readonly unknown[]> = T extends readonly [...unknown[], infer L] ? L : never;

/**
 * What an `ownedResource`, or a level of an {@link ownedPath}, adds to `ctx.var`: its record under
 * its noun (`{ order: Order }`). Nothing typed when the noun is not a literal.
 */
export type OwnedRecord<K extends string, R> = string extends K ? {} : { readonly [name in K]: R };

/**
 * The route parameters a path needs: `ParamsFor<'id' | 'order_id'>`, strings unless the route decodes
 * them (`ParamsFor<'id', number>` after a `params: { id: ... }` codec of numbers).
 */
export type ParamsFor<N extends string, Id = string> = { readonly [K in N]: Id };

/**
 * A nested path declared level by level, with the records the guard loaded for it. Build one with
 * {@link ownedPath}, extend it with {@link OwnedPath.child}, protect a route with `ownershipGuard`.
 * `Ps` are the route parameters it reads, each typed as its loader takes it.
 */
export interface OwnedPath<
  Records extends readonly unknown[],
  Names extends string,
  Vars extends object = {},
  Ps extends object = ParamsFor<Names>,
> {
  readonly levels: readonly OwnedLevel[];
  readonly access: AccessRule;
  /** This path with one more level below its last one. */
  child<R, N extends string, const K extends string = string, Id = string>(
    level: ChildLevel<R, LastRecord<Records>, N, K, Id>,
  ): OwnedPath<[...Records, R], Names | N, Vars & OwnedRecord<K, R>, Ps & ParamsFor<N, Id>>;
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

function build<
  Records extends readonly unknown[],
  Names extends string,
  Vars extends object,
  Ps extends object,
>(levels: readonly OwnedLevel[], access: AccessRule): OwnedPath<Records, Names, Vars, Ps> {
  const frozen = Object.freeze([...levels]);
  return Object.freeze({
    levels: frozen,
    access,
    child<R, N extends string, K extends string = string, Id = string>(
      level: ChildLevel<R, LastRecord<Records>, N, K, Id>,
    ) {
      checkLevel(level, 'ownedPath.child');
      if (typeof level.belongsTo !== 'function') {
        throw new TypeError(
          'ownedPath.child: belongsTo is required; checking that a child exists is not enough (see docs/ownership.md)',
        );
      }
      if (frozen.some((l) => l.param === level.param)) {
        throw new TypeError(`ownedPath.child: the path already uses the parameter {${level.param}}`);
      }
      if (level.noun !== undefined && frozen.some((l) => l.noun === level.noun)) {
        throw new TypeError(
          `ownedPath.child: another level is already named ${JSON.stringify(level.noun)} (ctx.var)`,
        );
      }
      const added: OwnedLevel = {
        param: level.param,
        noun: level.noun ?? 'resource',
        load: level.load as Loader<unknown, unknown, unknown>,
        belongsTo: level.belongsTo as (record: unknown, parent: unknown) => boolean,
      };
      return build<[...Records, R], Names | N, Vars & OwnedRecord<K, R>, Ps & ParamsFor<N, Id>>(
        [...frozen, added],
        access,
      );
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
 * // in the handler, after ownershipGuard({ path: userOrder }): ctx.var.user, ctx.var.order
 */
export function ownedPath<R, N extends string, const K extends string = string, Id = string>(
  parent: ParentLevel<R, N, K, Id>,
): OwnedPath<[R], N, OwnedRecord<K, R>, ParamsFor<N, Id>> {
  checkLevel(parent, 'ownedPath');
  if (typeof parent.access !== 'function') throw new TypeError('ownedPath: access must be a function');
  const level: OwnedLevel = {
    param: parent.param,
    noun: parent.noun ?? 'resource',
    load: parent.load as Loader<unknown, unknown, unknown>,
    belongsTo: undefined,
  };
  return build<[R], N, OwnedRecord<K, R>, ParamsFor<N, Id>>([level], parent.access);
}

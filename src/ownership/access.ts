import type { AttributeRule } from '../envelope/resource-type.js';
import type { Inputs, Principal } from '../http/types.js';

/**
 * Whether `principal` may access the top-level parent of a nested path, decided from the path alone
 * (`parentId` is the parent's id as text: a decoded `7` is `'7'`; `params` the route's parameters as
 * it decoded them). Deciding before loading keeps a forbidden caller from learning which ids exist.
 */
export type AccessRule = (
  principal: Principal,
  parentId: string,
  params: Inputs,
) => boolean | Promise<boolean>;

// RFC 6749 section 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The usual rule for a user's own resources: the user themself (`sub` equals the parent id), or a
 * token holding any of `scopes` (RFC 8693 section 4.2 `scope`), e.g. an administrator's `users:read`.
 *
 * @example ownedPath({ param: 'id', load: (id) => users.get(id), access: selfOrScope({ scopes: ['users:read'] }) })
 */
export function selfOrScope(options: { readonly scopes?: readonly string[] } = {}): AccessRule {
  const scopes = [...(options.scopes ?? [])];
  const bad = scopes.find((scope) => !SCOPE_TOKEN.test(scope));
  if (bad !== undefined) {
    throw new TypeError(`selfOrScope: ${JSON.stringify(bad)} is not a scope token (RFC 6749 section 3.3)`);
  }
  return function selfOrScopeRule(principal, parentId) {
    return principal.sub === parentId || scopes.some((scope) => principal.scopes.has(scope));
  };
}

/**
 * An attribute rule for `defineResourceType({ visibleTo })`: only the record's owner sees the
 * attribute (no superfluous or sensitive information; OWASP API3:2023); everyone else, including
 * callers whose scope lets them read the record, never does.
 *
 * @example visibleTo: { email: visibleToOwner((user) => user.id) }
 */
export function visibleToOwner<R>(ownerOf: (record: R) => string): AttributeRule<R> {
  return function visibleToOwnerRule(record, viewer) {
    return viewer !== undefined && viewer.sub === ownerOf(record);
  };
}

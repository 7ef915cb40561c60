/**
 * Freezes `value` and every object reachable from it, in place, so a declaration listed for tools
 * (a route, a verifier's options) cannot be changed after it was checked. Objects `leave` answers
 * true for (the user's codecs and validators) are listed as they are, neither frozen nor entered.
 */
export function deepFreeze<T>(value: T, leave?: (value: object) => boolean): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (leave?.(value)) return value;
  Object.freeze(value);
  for (const member of Object.values(value)) deepFreeze(member, leave);
  return value;
}

/**
 * The request path in the form its route was registered with: `/orders/` and `/orders` reach the same
 * route (see [core](../../docs/core.md), "Trailing slash"), and the registered pattern decides which
 * of the two is canonical. Used wherever "the same resource" must compare equal: self links,
 * idempotency fingerprints.
 *
 * @example canonicalPath('/orders/', '/orders'); // '/orders'
 */
export function canonicalPath(path: string, pattern: string | undefined): string {
  if (pattern === undefined) return path;
  const wantsSlash = pattern.length > 1 && pattern.endsWith('/');
  const hasSlash = path.length > 1 && path.endsWith('/');
  if (wantsSlash === hasSlash) return path;
  return wantsSlash ? `${path}/` : path.slice(0, -1);
}

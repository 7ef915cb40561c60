import type { OpenApiDocument } from './types.js';

/**
 * Follow a local `$ref` (`#/components/...`, RFC 6901 JSON Pointer) to what it names, as many times as
 * it takes. Anything else (no `$ref`, a remote one, a broken one) comes back as it is: readers treat
 * an unresolvable object as declaring nothing.
 */
export function resolveRef<T>(document: OpenApiDocument, value: T): T {
  let current: unknown = value;
  for (let hops = 0; hops < 32; hops++) {
    const ref = (current as { $ref?: unknown } | undefined)?.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return current as T;
    let target: unknown = document;
    for (const token of ref.slice(2).split('/')) {
      const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
      target =
        typeof target === 'object' && target !== null ? (target as Record<string, unknown>)[key] : undefined;
    }
    if (target === undefined) return current as T;
    current = target;
  }
  return current as T;
}

/**
 * `headers` and one more field, in a new object that later layers add fields to. Not a spread: in
 * node 20's V8, an object made by `{ ...headers, name }` in optimized code has a map outside the
 * transition tree, so each field added afterwards (security headers, request id, date) creates a
 * fresh hidden class, on every response (docs/benchmarks.md, "The write path").
 */
export function copyWith(
  headers: Readonly<Record<string, string>>,
  name: string,
  value: string,
): Record<string, string> {
  const copy: Record<string, string> = Object.assign({}, headers);
  copy[name] = value;
  return copy;
}

/**
 * Add tokens to a list-valued header (`Vary`, `Allow`, ...) without duplicating or overwriting the
 * tokens already there. Comparison is case-insensitive.
 */
export function appendListHeader(
  headers: Record<string, string>,
  name: string,
  tokens: readonly string[],
): void {
  const current = headers[name];
  if (current === undefined || current === '') {
    headers[name] = tokens.join(', ');
    return;
  }
  if (current.trim() === '*') return;
  const present = new Set(current.split(',').map((t) => t.trim().toLowerCase()));
  const added = tokens.filter((t) => !present.has(t.toLowerCase()));
  if (added.length > 0) headers[name] = `${current}, ${added.join(', ')}`;
}

/** `Vary: Accept`'s list, for {@link appendListHeader}: the answer's format is chosen from `Accept`. */
export const VARY_ACCEPT: readonly string[] = ['Accept'];

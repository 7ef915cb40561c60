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

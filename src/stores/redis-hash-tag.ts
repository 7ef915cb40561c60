/**
 * Redis Cluster hash tags for the Redis stores. A key's slot is computed from its hash tag, the
 * part between its first `{` and the next `}` when that part is not empty (Redis Cluster
 * specification, "Hash tags"), so the keys one script touches share a tag, and different owners
 * or clients get different tags to spread over the masters.
 */

/**
 * `value` as a hash tag: `%`, `{` and `}` percent-encoded, so no value ends the tag early or names
 * another value's keys, and the empty value as a lone `%`, so the tag is never empty (an empty tag
 * would hash each whole key on its own).
 */
export function hashTag(value: string): string {
  if (value === '') return '%';
  return /[%{}]/.test(value)
    ? value.replace(/[%{}]/g, (c) => (c === '%' ? '%25' : c === '{' ? '%7B' : '%7D'))
    : value;
}

/**
 * A key prefix holding `{` or `}` would be the tag of every key instead, putting all of them in one
 * slot: refused at start-up, naming the store.
 */
export function checkPrefix(store: string, prefix: unknown): string {
  if (typeof prefix !== 'string' || /[{}]/.test(prefix)) {
    throw new TypeError(
      `${store}: prefix must be a string without '{' or '}' (the store puts a hash tag after it), got ${String(prefix)}`,
    );
  }
  return prefix;
}

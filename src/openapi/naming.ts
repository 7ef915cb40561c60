import { VERSION_SEGMENT } from '../core/route-pattern.js';

/** A name for components: `account-types` -> `AccountTypes`. */
export function pascalCase(words: string): string {
  return words
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** An operation's tag: its path's first resource segment (`/api/v1/standards/{id}` -> `standards`). */
export function tagOf(pattern: string): string {
  const segments = pattern
    .split('/')
    .filter((s) => s !== '' && !s.startsWith('{') && !VERSION_SEGMENT.test(s) && s !== 'api');
  return segments[0] ?? 'root';
}

/**
 * A stable operationId from the method and the path (`getBooksById`), unique in `taken`: the same
 * routes always give the same ids, which generated clients name their functions after.
 */
export function uniqueOperationId(method: string, pattern: string, taken: Set<string>): string {
  const words = pattern
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (s.startsWith('{') ? `by-${s.slice(1, -1)}` : s))
    .join('-');
  const base = `${method.toLowerCase()}${pascalCase(words)}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
  taken.add(id);
  return id;
}

/** The path as the document lists it: without a trailing slash (the router answers both spellings). */
export function documentedPath(pattern: string): string {
  return pattern.length > 1 ? pattern.replace(/\/$/, '') : pattern;
}

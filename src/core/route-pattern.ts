/**
 * Route patterns such as `/users/{id}/orders/{order_id}` and the naming conventions they must follow
 * (see docs/core.md, "Routing"): resources are nouns, collections are plural, multi-word segments are
 * hyphenated, and operations are expressed by the method, never the path.
 */

/** The parameter names of a pattern, as a type: `ParamsOf<'/users/{id}'>` is `{ id: string }`. */
export type ParamsOf<P extends string> = string extends P
  ? Record<string, string>
  : P extends `${string}{${infer Name}}${infer Rest}`
    ? { readonly [K in Name | keyof ParamsOf<Rest>]: string }
    : {};

export type PatternSegment =
  | { readonly kind: 'static'; readonly value: string }
  | { readonly kind: 'param'; readonly name: string };

/**
 * The naming rules, by id: `kebabCase` (a static segment is lower-case words joined by hyphens),
 * `noOperationWords` (no segment starts with a verb such as `get` or `create`), `pluralCollections`
 * (a segment right before a parameter is a plural noun).
 */
export type NamingRuleId = 'kebabCase' | 'noOperationWords' | 'pluralCollections';

/** What a broken rule does at registration: throw a `TypeError` (default), log a warning, nothing. */
export type NamingRuleMode = 'error' | 'warn' | 'off';

const NAMING_RULE_IDS: readonly NamingRuleId[] = ['kebabCase', 'noOperationWords', 'pluralCollections'];

/** Options for the naming rules checked when a route is registered (see `docs/core.md`). */
export interface NamingRules extends Partial<Readonly<Record<NamingRuleId, NamingRuleMode>>> {
  /** Check the rules at all (default `true`); `false` is every rule `'off'`. */
  readonly enforce?: boolean;
  /** Static segments accepted as they are (e.g. a singular collection name your API inherited). */
  readonly allowSegments?: readonly string[];
}

/** Receives the message of a rule in `'warn'` mode, once per route registered. */
export type NamingWarning = (message: string, fields: { rule: NamingRuleId; pattern: string }) => void;

/** Checks the naming options at start-up: a `TypeError` names the option at fault. */
export function checkNamingRules(rules: NamingRules): void {
  for (const id of NAMING_RULE_IDS) {
    const mode = rules[id];
    if (mode !== undefined && mode !== 'error' && mode !== 'warn' && mode !== 'off') {
      throw new TypeError(`naming.${id} must be 'error', 'warn' or 'off', got ${String(mode)}`);
    }
  }
}

/**
 * Words that name an operation. A segment that is one, or starts with one (`get-books`,
 * `create-order`), is refused: the HTTP method is the operation. Words that are as often nouns or
 * adjectives (`read`, `new`, `set`, `list`) are left out, so `read-receipts` and `new-releases` pass.
 */
export const OPERATION_WORDS: ReadonlySet<string> = new Set([
  'add',
  'cancel',
  'create',
  'delete',
  'destroy',
  'do',
  'edit',
  'execute',
  'fetch',
  'find',
  'get',
  'insert',
  'make',
  'modify',
  'remove',
  'save',
  'update',
  'upsert',
]);

/** Plural nouns that do not end in "s", accepted as collection names. */
export const IRREGULAR_PLURALS: ReadonlySet<string> = new Set([
  'people',
  'children',
  'men',
  'women',
  'data',
  'media',
  'criteria',
  'phenomena',
  'feet',
  'teeth',
  'mice',
  'geese',
]);

const SEGMENT = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
/** A path segment naming an API version, `v1`, `v2`... (see [versioning](../../docs/versioning.md)). */
export const VERSION_SEGMENT = /^v\d+$/;

/**
 * Parse a pattern into segments, checking its syntax and (unless turned off) the naming rules: a rule
 * in `'error'` mode throws, in `'warn'` mode calls `warn`.
 */
export function parsePattern(
  pattern: string,
  rules: NamingRules = {},
  warn: NamingWarning = () => {},
): PatternSegment[] {
  if (!pattern.startsWith('/')) throw new TypeError(`Route pattern must start with "/": ${pattern}`);
  if (/[?#]/.test(pattern)) {
    throw new TypeError(
      `Route pattern must not contain a query or fragment (operations belong in the method): ${pattern}`,
    );
  }
  const parts = trimTrailingSlash(pattern).split('/').slice(1);
  if (parts.length === 1 && parts[0] === '') return [];
  const segments: PatternSegment[] = [];
  const names = new Set<string>();
  for (const part of parts) {
    const param = PARAM.exec(part);
    if (param) {
      const name = param[1]!;
      if (names.has(name)) throw new TypeError(`Route pattern repeats parameter {${name}}: ${pattern}`);
      names.add(name);
      segments.push({ kind: 'param', name });
    } else if (part.includes('{') || part.includes('}') || part === '') {
      throw new TypeError(`Route pattern has a malformed segment "${part}": ${pattern}`);
    } else {
      segments.push({ kind: 'static', value: part });
    }
  }
  if (rules.enforce !== false) checkNaming(pattern, segments, rules, warn);
  return segments;
}

function checkNaming(
  pattern: string,
  segments: PatternSegment[],
  rules: NamingRules,
  warn: NamingWarning,
): void {
  const allowed = new Set(rules.allowSegments ?? []);
  const broken = (rule: NamingRuleId, problem: string): void => {
    const mode = rules[rule] ?? 'error';
    if (mode === 'off') return;
    const message =
      `${problem}: ${pattern} (naming rule "${rule}"; relax it with createApp({ naming: { ${rule}: 'warn' } }) ` +
      `or 'off', or list the segment in naming.allowSegments; see docs/core.md)`;
    if (mode === 'error') throw new TypeError(message);
    warn(message, { rule, pattern });
  };
  segments.forEach((segment, index) => {
    if (segment.kind !== 'static' || allowed.has(segment.value)) return;
    const { value } = segment;
    if (!SEGMENT.test(value)) {
      broken(
        'kebabCase',
        `Route segment "${value}" must be lower-case words separated by hyphens (e.g. "account-type")`,
      );
    }
    const verb = [value.split('-')[0]!].find((word) => OPERATION_WORDS.has(word));
    if (verb !== undefined) {
      broken(
        'noOperationWords',
        `Route segment "${value}" names an operation ("${verb}"); use a noun and let the HTTP method be the operation`,
      );
    }
    const next = segments[index + 1];
    const lastWord = value.slice(value.lastIndexOf('-') + 1);
    const plural = lastWord.endsWith('s') || IRREGULAR_PLURALS.has(lastWord);
    if (next?.kind === 'param' && !VERSION_SEGMENT.test(value) && !plural) {
      broken('pluralCollections', `Collection segment "${value}" must be a plural noun (e.g. "${value}s")`);
    }
  });
}

/**
 * The canonical form of a path: no trailing slash (except the root). `/books/` and `/books` name the
 * same resource; both are served, neither redirects, so a POST body is never lost.
 */
export function trimTrailingSlash(path: string): string {
  return path.length > 1 && path.charCodeAt(path.length - 1) === 47 ? path.slice(0, -1) : path;
}

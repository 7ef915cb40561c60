import fc from 'fast-check';
import { resolveRef } from '../openapi/refs.js';
import type { JsonSchema, OpenApiDocument } from '../openapi/types.js';
import { merged, type Schema, validValue } from './schema-arbitrary.js';

/** Candidates drawn from a pattern for one fresh value: the longest unused one is kept. */
const CANDIDATES = 30;
/** How deep into a body members are looked at (a JSON:API document's attributes are at depth 2). */
const MAX_DEPTH = 6;

/**
 * `value` with every member that names something, and so may have to be unique (a `code`, a slug,
 * an address), drawn afresh from its schema: a string whose schema has an anchored pattern
 * (`^[A-Z0-9][A-Z0-9.-]*$`: JSON Schema 2020-12 `pattern`, `allOf` branches included), or a
 * `format` of `uuid` or `email`. Other members keep their value. A run of the kit against a live
 * server thus does not create the same `code` twice, nor the one an earlier run created.
 *
 * The values come from a random source of their own, not the run's seed: a replayed seed sends
 * requests of the same shape, with other values in those members. `taken` holds the values already
 * drawn by this run; a new one is never among them. A pattern the generator cannot draw from
 * (lookarounds, back-references) leaves the member as it was.
 *
 * @example
 * freshValues({ code: 'RFC-9110', name: 'HTTP' }, schema, document, new Set());
 * // { code: 'B-M.B-.1232-.-H7M7.EE.0BVI.3-4..', name: 'HTTP' }
 */
export function freshValues(
  value: unknown,
  schema: JsonSchema,
  document: OpenApiDocument,
  taken: Set<string>,
  depth = 0,
): unknown {
  if (depth > MAX_DEPTH) return value;
  const s = merged(resolveRef(document, schema) as Schema, document);
  const branches = s.oneOf ?? s.anyOf;
  if (branches !== undefined) {
    const branch = branches.find((b) => fits(value, merged(resolveRef(document, b) as Schema, document)));
    return branch === undefined ? value : freshValues(value, branch, document, taken, depth + 1);
  }
  if (typeof value === 'string') return names(s) ? (freshString(s, document, taken) ?? value) : value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const properties = s.properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    const child = properties[name];
    out[name] = child === undefined ? member : freshValues(member, child, document, taken, depth + 1);
  }
  return out;
}

/** A string schema whose values name something: an anchored pattern, or a uuid or email format. */
function names(s: Schema): boolean {
  if (s.const !== undefined || s.enum !== undefined) return false;
  if (s.format === 'uuid' || s.format === 'email') return true;
  return (s.patterns ?? (s.pattern === undefined ? [] : [s.pattern])).some(
    (p) => p.startsWith('^') && p.endsWith('$'),
  );
}

/** Whether `value` has a JSON type the schema allows (to pick the `anyOf` branch a value took). */
function fits(value: unknown, s: Schema): boolean {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? undefined : [s.type];
  if (types === undefined) return s.properties !== undefined ? kind === 'object' : true;
  return types.some((t) => t === kind || (kind === 'number' && t === 'integer'));
}

function freshString(s: Schema, document: OpenApiDocument, taken: Set<string>): string | undefined {
  let drawn: string | undefined;
  if (s.format === 'uuid') drawn = crypto.randomUUID();
  else if (s.format === 'email') drawn = `kit-${crypto.randomUUID().slice(0, 13)}@example.com`;
  else {
    let candidates: unknown[];
    try {
      candidates = fc.sample(validValue(s as JsonSchema, document), {
        numRuns: CANDIDATES,
        seed: crypto.getRandomValues(new Uint32Array(1))[0]! >>> 1,
      });
    } catch {
      return undefined;
    }
    // fast-check favours short values; the longest is the least likely to have been drawn before.
    drawn = candidates
      .filter((c): c is string => typeof c === 'string' && !taken.has(c))
      .sort((a, b) => b.length - a.length)[0];
  }
  if (drawn !== undefined) taken.add(drawn);
  return drawn;
}

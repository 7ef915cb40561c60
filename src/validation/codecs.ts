import * as t from 'io-ts';
import { annotate, type JsonSchema, refine } from './describe.js';
import {
  MAX_UNKNOWN_FIELD_FAILURES,
  MISSING_FIELD,
  OMITTED_FAILURES,
  UNKNOWN_FIELD,
} from './failure-messages.js';
import { integerFormat } from './integer-format.js';

export {
  MAX_UNKNOWN_FIELD_FAILURES,
  MISSING_FIELD,
  OMITTED_FAILURES,
  UNKNOWN_FIELD,
} from './failure-messages.js';

import { UNSTORABLE_TEXT } from './storable-text.js';

export { isStorableText } from './storable-text.js';

/** The value a {@link StrictObjectType} decodes to: its required fields, and its optional ones where present. */
export type StrictObjectOutput<R extends t.Props, O extends t.Props> = t.TypeOf<t.TypeC<R>> &
  Partial<t.TypeOf<t.TypeC<O>>>;

/**
 * The codec `strictObject` builds: an io-ts `t.exact` over `t.intersection([t.type(required),
 * t.partial(optional)])` (so schema generators and the compatibility check walk it as such) whose
 * decoding refuses unknown fields instead of stripping them.
 */
export class StrictObjectType<R extends t.Props, O extends t.Props> extends t.ExactType<
  t.IntersectionC<[t.TypeC<R>, t.PartialC<O>]>,
  StrictObjectOutput<R, O>,
  StrictObjectOutput<R, O>,
  unknown
> {
  constructor(
    name: string,
    readonly required: R,
    readonly optional: O,
  ) {
    const inner = t.intersection([t.type(required), t.partial(optional)]);
    const known = new Set([...Object.keys(required), ...Object.keys(optional)]);
    const present = (input: Record<string, unknown>, key: string) =>
      Object.hasOwn(input, key) && input[key] !== undefined;
    // The fields are fixed: listed once here, not on every value checked.
    const requiredFields = Object.entries(required);
    const optionalFields = Object.entries(optional);
    const fieldsValid = (input: Record<string, unknown>, fields: [string, t.Mixed][], isRequired: boolean) =>
      fields.every(([key, codec]) => (present(input, key) ? codec.is(input[key]) : !isRequired));
    super(
      name,
      (u): u is StrictObjectOutput<R, O> =>
        t.UnknownRecord.is(u) &&
        Object.keys(u).every((key) => known.has(key)) &&
        fieldsValid(u, requiredFields, true) &&
        fieldsValid(u, optionalFields, false),
      (u, context) => {
        if (!t.UnknownRecord.is(u)) return t.failure(u, context);
        const errors: t.ValidationError[] = [];
        const output: Record<string, unknown> = {};
        let omitted = 0;
        for (const key of Object.keys(u)) {
          if (known.has(key)) continue;
          if (errors.length >= MAX_UNKNOWN_FIELD_FAILURES) {
            omitted++;
            continue;
          }
          errors.push({
            value: u[key],
            context: [...context, { key, type: t.never, actual: u[key] }],
            message: UNKNOWN_FIELD,
          });
        }
        if (omitted > 0) errors.push({ value: omitted, context, message: OMITTED_FAILURES });
        const check = (key: string, codec: t.Mixed, isRequired: boolean) => {
          if (!present(u, key)) {
            if (isRequired)
              errors.push({
                value: undefined,
                context: [...context, { key, type: codec, actual: undefined }],
                message: MISSING_FIELD,
              });
            return;
          }
          const result = codec.validate(u[key], [...context, { key, type: codec, actual: u[key] }]);
          if (result._tag === 'Left') errors.push(...result.left);
          else output[key] = result.right;
        };
        for (const [key, codec] of requiredFields) check(key, codec, true);
        for (const [key, codec] of optionalFields) check(key, codec, false);
        return errors.length > 0 ? t.failures(errors) : t.success(output as StrictObjectOutput<R, O>);
      },
      t.identity,
      inner,
    );
  }
}

/**
 * An object codec that rejects unknown fields (instead of stripping them, as `t.exact` does) and
 * reports every problem at once: each missing field, each unknown field, each bad value. Its JSON
 * Schema has `additionalProperties: false`.
 *
 * @example const OrderInput = strictObject({ bookId: positiveInteger, quantity: integer({ min: 1, max: 100 }) });
 */
export function strictObject<R extends t.Props, O extends t.Props = {}>(
  required: R,
  optional: O = {} as O,
  name = 'an object',
): StrictObjectType<R, O> {
  return new StrictObjectType(name, required, optional);
}

/**
 * A safe integer, optionally within bounds. Rejects `1.5`, `"1"`, `NaN` and unsafe integers.
 * JSON Schema: `{ type: 'integer', format, minimum, maximum }` (the safe range when a bound is not
 * given; `format` is `int32` when the range fits one, else `int64`).
 */
export function integer(
  bounds: { readonly min?: number; readonly max?: number } = {},
): t.RefinementC<t.NumberC> {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
  const name =
    bounds.min !== undefined && bounds.max !== undefined
      ? `an integer from ${min} to ${max}`
      : bounds.min !== undefined
        ? `an integer of at least ${min}`
        : bounds.max !== undefined
          ? `an integer of at most ${max}`
          : 'an integer';
  return refine(t.number, (n) => Number.isSafeInteger(n) && n >= min && n <= max, {
    name,
    schema: { type: 'integer', format: integerFormat(min, max), minimum: min, maximum: max },
  });
}

/** A positive integer identifier (1 and up). */
export const positiveInteger = integer({ min: 1 });

/**
 * The length of a string in Unicode code points, as JSON Schema counts `minLength`/`maxLength`
 * (a surrogate pair is one character; a lone surrogate is one too).
 */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

// The subschemas under `not` and `allOf` name no `type`: the outer schema is a string already, and a
// subschema of its own type would read, to tools checking every string schema for a bound (OWASP API4),
// as one more unbounded string.
const UNSTORABLE_SCHEMA = { pattern: '[\\u0000\\uD800-\\uDFFF]' } as const;

/**
 * A string of `minLength..maxLength` characters (Unicode code points, as JSON Schema counts them;
 * default 1..10 000; whitespace-only is refused when a minimum applies), optionally matching
 * `pattern` (anchor it: `^...$`; with flags other than `u` it works but `toJsonSchema` cannot describe
 * it, since JSON Schema patterns take no flags). Text holding U+0000 or a lone surrogate
 * ({@link UNSTORABLE_TEXT}) is refused: a store could not keep it (JSON Schema: a `not` pattern).
 * `description` names the expected form in error details (default: the length bounds).
 *
 * @example text({ maxLength: 32, pattern: /^[A-Z0-9][A-Z0-9.-]*$/, description: 'an upper-case code' })
 */
export function text(
  bounds: {
    readonly maxLength?: number;
    readonly minLength?: number;
    readonly pattern?: RegExp;
    readonly description?: string;
    readonly example?: string;
  } = {},
): t.RefinementC<t.StringC> {
  const { minLength = 1, maxLength = 10_000, pattern } = bounds;
  if (pattern !== undefined && (pattern.global || pattern.sticky)) {
    throw new TypeError('text: pattern must not be global or sticky (it would keep state between requests)');
  }
  const schema: Record<string, unknown> = { type: 'string', minLength, maxLength, not: UNSTORABLE_SCHEMA };
  const patterns = [...(minLength > 0 ? ['\\S'] : []), ...(pattern === undefined ? [] : [pattern.source])];
  if (patterns.length === 1) schema.pattern = patterns[0];
  if (patterns.length > 1) schema.allOf = patterns.map((p) => ({ pattern: p }));
  const fits = (u: string) => {
    // Code points never exceed code units: count them only when the bounds could differ.
    const lengthFits =
      u.length <= maxLength && u.length >= 2 * minLength
        ? true
        : ((n) => n >= minLength && n <= maxLength)(codePoints(u));
    return (
      lengthFits &&
      (minLength === 0 || u.trim() !== '') &&
      (pattern === undefined || pattern.test(u)) &&
      !UNSTORABLE_TEXT.test(u)
    );
  };
  const name = bounds.description ?? `a string of ${minLength} to ${maxLength} characters`;
  // JSON Schema patterns take no flags: a pattern with flags other than `u` decodes as before but has
  // no schema, so toJsonSchema refuses it rather than describe something else.
  if (pattern !== undefined && pattern.flags.replace('u', '') !== '')
    return t.refinement(t.string, fits, name);
  return refine(t.string, fits, {
    name,
    schema,
    ...(bounds.example === undefined ? {} : { example: bounds.example }),
  });
}

/** One of a fixed set of strings (an io-ts `t.keyof`; JSON Schema `enum`). */
export function oneOf<const V extends readonly [string, ...string[]]>(
  values: V,
): t.Type<V[number], V[number], unknown> {
  const keys = Object.fromEntries(values.map((v) => [v, null])) as { [K in V[number]]: null };
  return t.keyof(keys, `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`);
}

/**
 * `codec`'s values or `null` (a field that can be cleared): an io-ts union of `codec` and `t.null`,
 * reported as "<codec's form> or null", with `codec`'s own failures when the value is not null.
 * @example nullable(text({ maxLength: 2000 }))
 */
export function nullable<A, O>(
  codec: t.Type<A, O, unknown>,
): t.UnionType<[t.Type<A, O, unknown>, t.NullC], A | null, O | null, unknown> {
  return new t.UnionType<[t.Type<A, O, unknown>, t.NullC], A | null, O | null, unknown>(
    `${codec.name} or null`,
    (u): u is A | null => u === null || codec.is(u),
    (u, c) => (u === null ? t.success(null) : codec.validate(u, c)),
    (a) => (a === null ? null : codec.encode(a)),
    [codec, t.null],
  );
}

/**
 * `YYYY-MM-DD` with a valid month and a day that exists in it: leap years counted as RFC 3339
 * appendix C counts them (a year divisible by 400 is one, year 0000 included).
 */
const FULL_DATE_SCHEMA: JsonSchema = {
  type: 'string',
  pattern:
    '^(?:\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))' +
    '|(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:00|0[48]|[2468][048]|[13579][26])00)-02-29)$',
};

/**
 * A calendar date as RFC 3339 section 5.6 `full-date` (`2024-02-29`), decoded as that string. The
 * day must exist (`2023-02-29` is refused). JSON Schema: `format: 'date'` with an exact pattern.
 */
export function date(options: { readonly description?: string; readonly example?: string } = {}) {
  const codec = refine(
    t.string,
    (s) => {
      const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
      if (m === null) return false;
      const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
      const d = new Date(0);
      d.setUTCFullYear(year, month - 1, day);
      return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
    },
    { name: options.description ?? 'a date (YYYY-MM-DD)', schema: FULL_DATE_SCHEMA, format: 'date' },
  );
  return annotate(codec, { example: options.example ?? '2024-02-29' });
}

/**
 * A JSON array of `item` values, `minItems..maxItems` long (default 0..1000): `t.array` refined by
 * its length. JSON Schema: `{ type: 'array', items, minItems, maxItems }`.
 */
export function list<C extends t.Mixed>(
  item: C,
  bounds: { readonly minItems?: number; readonly maxItems?: number } = {},
): t.RefinementC<t.ArrayC<C>> {
  const { minItems = 0, maxItems = 1000 } = bounds;
  return refine(t.array(item), (a) => a.length >= minItems && a.length <= maxItems, {
    name: `a list of ${minItems} to ${maxItems} ${item.name}`,
    schema: { type: 'array', minItems, maxItems },
  });
}

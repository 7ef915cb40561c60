import * as t from 'io-ts';

/** Failure messages the strict object codec attaches, mapped to error codes by `toFieldErrors`. */
export const UNKNOWN_FIELD = 'unknown-field';
export const MISSING_FIELD = 'missing-field';

type Out<R extends t.Props, O extends t.Props> = t.TypeOf<t.TypeC<R>> & Partial<t.TypeOf<t.TypeC<O>>>;

/**
 * An object codec that rejects unknown fields (instead of stripping them, as `t.exact` does) and
 * reports every problem at once: each missing field, each unknown field, each bad value.
 *
 * @example const OrderInput = strictObject({ bookId: positiveInteger, quantity: integer({ min: 1, max: 100 }) });
 */
export function strictObject<R extends t.Props, O extends t.Props = {}>(
  required: R,
  optional: O = {} as O,
  name = 'an object',
): t.Type<Out<R, O>, Out<R, O>, unknown> {
  const known = new Set([...Object.keys(required), ...Object.keys(optional)]);
  return new t.Type<Out<R, O>, Out<R, O>, unknown>(
    name,
    (u): u is Out<R, O> => t.UnknownRecord.is(u),
    (u, context) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, context);
      const input = u as Record<string, unknown>;
      const errors: t.ValidationError[] = [];
      const output: Record<string, unknown> = {};
      for (const key of Object.keys(input)) {
        if (!known.has(key)) {
          errors.push({
            value: input[key],
            context: [...context, { key, type: t.never, actual: input[key] }],
            message: UNKNOWN_FIELD,
          });
        }
      }
      const check = (key: string, codec: t.Mixed, isRequired: boolean) => {
        if (!Object.hasOwn(input, key) || input[key] === undefined) {
          if (isRequired)
            errors.push({
              value: undefined,
              context: [...context, { key, type: codec, actual: undefined }],
              message: MISSING_FIELD,
            });
          return;
        }
        const result = codec.validate(input[key], [...context, { key, type: codec, actual: input[key] }]);
        if (result._tag === 'Left') errors.push(...result.left);
        else output[key] = result.right;
      };
      for (const [key, codec] of Object.entries(required)) check(key, codec, true);
      for (const [key, codec] of Object.entries(optional)) check(key, codec, false);
      return errors.length > 0 ? t.failures(errors) : t.success(output as Out<R, O>);
    },
    t.identity,
  );
}

interface IntegerBrand {
  readonly Integer: unique symbol;
}

/** A safe integer, optionally within bounds. Rejects `1.5`, `"1"`, `NaN` and unsafe integers. */
export function integer(
  bounds: { readonly min?: number; readonly max?: number } = {},
): t.Type<number, number, unknown> {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
  const name =
    bounds.min !== undefined && bounds.max !== undefined
      ? `an integer from ${min} to ${max}`
      : bounds.min !== undefined
        ? `an integer of at least ${min}`
        : bounds.max !== undefined
          ? `an integer of at most ${max}`
          : 'an integer';
  const branded = t.brand(
    t.number,
    (n): n is t.Branded<number, IntegerBrand> => Number.isSafeInteger(n) && n >= min && n <= max,
    'Integer',
  );
  return new t.Type<number, number, unknown>(
    name,
    (u): u is number => branded.is(u),
    branded.validate,
    t.identity,
  );
}

/** A positive integer identifier (1 and up). */
export const positiveInteger = integer({ min: 1 });

/**
 * A string of `minLength..maxLength` characters (default 1..10 000; whitespace-only is refused when
 * a minimum applies), optionally matching `pattern` (anchor it: `^...$`). `description` names the
 * expected form in error details (default: the length bounds).
 *
 * @example text({ maxLength: 32, pattern: /^[A-Z0-9][A-Z0-9.-]*$/, description: 'an upper-case code' })
 */
export function text(
  bounds: {
    readonly maxLength?: number;
    readonly minLength?: number;
    readonly pattern?: RegExp;
    readonly description?: string;
  } = {},
): t.Type<string, string, unknown> {
  const { minLength = 1, maxLength = 10_000, pattern } = bounds;
  if (pattern !== undefined && (pattern.global || pattern.sticky)) {
    throw new TypeError('text: pattern must not be global or sticky (it would keep state between requests)');
  }
  const fits = (u: unknown): u is string =>
    typeof u === 'string' &&
    u.length >= minLength &&
    u.length <= maxLength &&
    (minLength === 0 || u.trim() !== '') &&
    (pattern === undefined || pattern.test(u));
  return new t.Type<string, string, unknown>(
    bounds.description ?? `a string of ${minLength} to ${maxLength} characters`,
    fits,
    (u, c) => (fits(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  );
}

/** One of a fixed set of strings. */
export function oneOf<const V extends readonly [string, ...string[]]>(
  values: V,
): t.Type<V[number], V[number], unknown> {
  const allowed = new Set<string>(values);
  return new t.Type<V[number], V[number], unknown>(
    `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`,
    (u): u is V[number] => typeof u === 'string' && allowed.has(u),
    (u, c) => (typeof u === 'string' && allowed.has(u) ? t.success(u as V[number]) : t.failure(u, c)),
    t.identity,
  );
}

/**
 * `codec`'s values or `null` (a field that can be cleared). Reported as "<codec's form> or null".
 * @example nullable(text({ maxLength: 2000 }))
 */
export function nullable<A, O>(codec: t.Type<A, O, unknown>): t.Type<A | null, O | null, unknown> {
  return new t.Type<A | null, O | null, unknown>(
    `${codec.name} or null`,
    (u): u is A | null => u === null || codec.is(u),
    (u, c) => (u === null ? t.success(null) : codec.validate(u, c)),
    (a) => (a === null ? null : codec.encode(a)),
  );
}

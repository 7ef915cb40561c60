import * as t from 'io-ts';
import { positiveInteger } from '../errors/option-checks.js';
import { withSchema } from './describe.js';

/**
 * The codecs of resource ids as they appear in a URL (`/books/12`) and in a resource object's `id`
 * member (`"id": "12"`): a JSON:API id is a string (JSON:API 1.0 "Identification"), so a client passes
 * `data.id` back into the next path as it is. Give one to a `ResourceSchema`'s `id` and to the route's
 * `params`: the OpenAPI document then describes both with the same string schema.
 */

/** Decimal digits without a leading zero, up to 15 of them: every value is a safe integer. */
const NUMERIC_ID = /^[1-9][0-9]{0,14}$/;

/**
 * A numeric id written in decimal (`"12"`), decoded to a number: 1 and up, no sign, no leading zero (so
 * one resource has one URL), at most 15 digits (below `Number.MAX_SAFE_INTEGER`, so the text is exact).
 * JSON Schema: `{ type: 'string', pattern: '^[1-9][0-9]{0,14}$', minLength: 1, maxLength: 15 }`.
 *
 * @example params: { id: numericId() } // ctx.params.id: number; GET /books/012 is a 404
 */
export function numericId(): t.Type<number, string, unknown> {
  return withSchema(
    new t.Type<number, string, unknown>(
      'a numeric id',
      (u): u is number => typeof u === 'number' && Number.isInteger(u) && NUMERIC_ID.test(String(u)),
      (u, c) => (typeof u === 'string' && NUMERIC_ID.test(u) ? t.success(Number(u)) : t.failure(u, c)),
      String,
    ),
    { type: 'string', pattern: NUMERIC_ID.source, minLength: 1, maxLength: 15 },
    { description: 'A positive integer in decimal, without leading zeros.', example: '12' },
  );
}

/**
 * A string id matching `pattern` (anchored, no flag but `u`: JSON Schema patterns take none), of at most
 * `maxLength` characters (required: an id is bounded), decoded as the string itself.
 * JSON Schema: `{ type: 'string', pattern, minLength: 1, maxLength }`.
 *
 * @example const standardId = stringId({ pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, maxLength: 36 });
 */
export function stringId(options: {
  readonly pattern: RegExp;
  readonly maxLength: number;
  readonly description?: string;
  readonly example?: string;
}): t.Type<string, string, unknown> {
  const { pattern, maxLength } = options;
  if (
    !(pattern instanceof RegExp) ||
    pattern.flags.replace('u', '') !== '' ||
    !pattern.source.startsWith('^') ||
    !pattern.source.endsWith('$')
  )
    throw new TypeError(
      `stringId: pattern must be a RegExp anchored with ^...$ and without flags other than u, got ${String(pattern)}`,
    );
  positiveInteger('stringId', 'maxLength', maxLength, 1);
  // maxLength in code points, as JSON Schema counts it (code units only differ past the BMP).
  const fits = (u: unknown): u is string =>
    typeof u === 'string' &&
    u !== '' &&
    (u.length <= maxLength || [...u].length <= maxLength) &&
    pattern.test(u);
  return withSchema(
    new t.Type<string, string, unknown>(
      options.description ?? `an id matching ${pattern.source}`,
      fits,
      (u, c) => (fits(u) ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { type: 'string', pattern: pattern.source, minLength: 1, maxLength },
    {
      ...(options.description === undefined ? {} : { description: options.description }),
      ...(options.example === undefined ? {} : { example: options.example }),
    },
  );
}

import type * as t from 'io-ts';
import type { ErrorDetail } from '../errors/api-error.js';
import type { CodedErrorDetail } from '../errors/coded-error.js';
import { echo, echoedWhole } from '../errors/echo.js';
import { ErrorList } from './error-cap.js';
import { MISSING_FIELD, OMITTED_FAILURES, UNKNOWN_FIELD } from './failure-messages.js';
import { UNSTORABLE_TEXT } from './storable-text.js';

const FRIENDLY: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  Int: 'an integer',
  UnknownRecord: 'an object',
  UnknownArray: 'an array',
  null: 'null',
};

/** RFC 6901 escaping of one reference token. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      if (UNSTORABLE_TEXT.test(value)) return 'a string holding U+0000 or a lone surrogate';
      return echoedWhole(value) ? `the string ${JSON.stringify(value)}` : 'a string';
    case 'number':
      return `the number ${value}`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

/**
 * The field path of a failure and the type expected there. The root entry and the entries io-ts adds
 * for each member of a union or intersection (keyed "0", "1", ...) name no field, so they are skipped:
 * a failed `t.union([t.null, text()])` at `note` is one problem at `/note`, expecting the union.
 */
function pathOf(context: t.Context): { keys: string[]; expected: string } {
  const keys: string[] = [];
  let expected = context[0]?.type.name ?? 'a valid value';
  for (let i = 1; i < context.length; i++) {
    const parent = context[i - 1]!.type;
    // By tag, not `instanceof`: no io-ts loaded here, and any copy of io-ts counts.
    const tag = (parent as { readonly _tag?: unknown })._tag;
    if (tag === 'UnionType' || tag === 'IntersectionType') continue;
    keys.push(context[i]!.key);
    expected = context[i]!.type.name;
  }
  return { keys, expected };
}

/**
 * One error per bad field, each with its JSON pointer (RFC 6901) under `prefix` (`/data/attributes`
 * for a JSON:API document, `` for bare attributes). Errors at the same pointer are reported once.
 */
export function toFieldErrors(errors: t.Errors, prefix: string): ErrorDetail[] {
  const list = new ErrorList(Number.POSITIVE_INFINITY);
  addFieldErrors(errors, prefix, list);
  return list.details;
}

/**
 * {@link toFieldErrors} into a capped list: past its cap, problems are counted, not built (a strict
 * object's count of unknown fields it did not itemize is added as is).
 */
export function addFieldErrors(errors: t.Errors, prefix: string, list: ErrorList): void {
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.message === OMITTED_FAILURES) {
      list.omitted += error.value as number;
      continue;
    }
    const { keys, expected } = pathOf(error.context);
    // A name too long to repeat is not repeated in the pointer either: it points at the object.
    const long = keys.findIndex((k) => !echoedWhole(k));
    const shown = long === -1 ? keys : keys.slice(0, long);
    const pointer = prefix + shown.map((k) => `/${escapePointerToken(k)}`).join('');
    if (seen.has(pointer)) continue;
    seen.add(pointer);
    list.add(() => fieldError(error, keys, expected, pointer));
  }
}

function fieldError(
  error: t.ValidationError,
  keys: readonly string[],
  expected: string,
  pointer: string,
): CodedErrorDetail {
  const field = keys.length > 0 ? `"${echo(keys.join('.'))}"` : 'The body';
  if (error.message === UNKNOWN_FIELD) {
    return {
      code: 'unknown-field',
      title: 'Unknown field',
      detail: `${field} is not a known field.`,
      source: { pointer },
    };
  }
  if (error.message === MISSING_FIELD) {
    return {
      code: 'missing-field',
      title: 'Missing field',
      detail: `${field} is required.`,
      source: { pointer },
    };
  }
  const friendly = FRIENDLY[expected] ?? expected;
  return {
    code: 'invalid-field',
    title: 'Invalid field',
    detail: `${field} must be ${friendly}, got ${describe(error.value)}.`,
    source: { pointer },
  };
}

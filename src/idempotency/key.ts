import { trimOws } from '../http/field-syntax.js';
/** The request header that carries the key (draft-ietf-httpapi-idempotency-key-header section 2). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The longest key accepted, in characters (Stripe's limit; the draft leaves it to the server). */
export const MAX_KEY_LENGTH = 255;

/** Why a present `Idempotency-Key` field was refused. */
export type InvalidKeyReason = 'empty' | 'too-long' | 'invalid-character' | 'several-values' | 'malformed';

/** The result of reading the `Idempotency-Key` field. */
export type KeyParse =
  | { readonly kind: 'absent' }
  | { readonly kind: 'valid'; readonly key: string }
  | { readonly kind: 'invalid'; readonly reason: InvalidKeyReason };

// RFC 8941 section 3.3.3: sf-string = DQUOTE *( unescaped / "\" ( DQUOTE / "\" ) ) DQUOTE
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"/;
// RFC 8941 section 3.1.2 parameters, ignored as the RFC asks of unknown ones:
// *( ";" *SP key [ "=" bare-item ] ) with bare-item = integer / decimal / string / token / byte-seq / boolean.
const PARAMETERS =
  /^(?:;[ ]*[a-z*][a-z0-9_.*-]*(?:=(?:-?\d{1,15}(?:\.\d{1,3})?|"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*"|[A-Za-z*][!#$%&'*+.^_`|~0-9A-Za-z:/-]*|:[A-Za-z0-9+/=]*:|\?[01]))?)*$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Read an `Idempotency-Key` field value.
 *
 * Two spellings name the same key: the structured-field string the draft specifies
 * (`"8e03978e-40d5"`, RFC 8941 section 3.3.3) and the bare value Stripe's clients send (`8e03978e-40d5`).
 * A key is 1..255 printable ASCII characters. Repeated field lines reach the server joined by `", "`
 * (RFC 9110 section 5.3), so a comma outside a quoted string means several values: a bare key cannot
 * contain a comma.
 *
 * @example
 * parseIdempotencyKey('"a1b2"'); // { kind: 'valid', key: 'a1b2' }
 * parseIdempotencyKey('a1b2');   // { kind: 'valid', key: 'a1b2' }
 * parseIdempotencyKey('a, b');   // { kind: 'invalid', reason: 'several-values' }
 * @see https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/
 */
export function parseIdempotencyKey(fieldValue: string | undefined): KeyParse {
  if (fieldValue === undefined) return { kind: 'absent' };
  const value = trimOws(fieldValue);
  if (value.startsWith('"')) return parseQuoted(value);
  return checkKey(value, true);
}

function parseQuoted(value: string): KeyParse {
  const match = SF_STRING.exec(value);
  if (match === null) {
    return invalid(
      PRINTABLE_ASCII.test(value)
        ? value.includes(',')
          ? 'several-values'
          : 'malformed'
        : 'invalid-character',
    );
  }
  const rest = value.slice(match[0].length);
  if (!PARAMETERS.test(rest)) return invalid(/^[ \t]*,/.test(rest) ? 'several-values' : 'malformed');
  return checkKey(match[1]!.replace(/\\(["\\])/g, '$1'), false);
}

function checkKey(key: string, bare: boolean): KeyParse {
  if (key.length === 0) return invalid('empty');
  if (!PRINTABLE_ASCII.test(key)) return invalid('invalid-character');
  if (bare && key.includes(',')) return invalid('several-values');
  if (key.length > MAX_KEY_LENGTH) return invalid('too-long');
  return { kind: 'valid', key };
}

function invalid(reason: InvalidKeyReason): KeyParse {
  return { kind: 'invalid', reason };
}

const REASON_DETAIL: Readonly<Record<InvalidKeyReason, string>> = {
  empty: 'Idempotency-Key must not be empty.',
  'too-long': `Idempotency-Key must be at most ${MAX_KEY_LENGTH} characters.`,
  'invalid-character': 'Idempotency-Key must contain printable ASCII characters only.',
  'several-values':
    'Idempotency-Key must carry exactly one key (several values or field lines were sent, or a bare key contains a comma).',
  malformed: 'Idempotency-Key must be a quoted structured-field string or a bare key.',
};

/** A human-readable explanation of an {@link InvalidKeyReason}, for the 400 error detail. */
export function invalidKeyDetail(reason: InvalidKeyReason): string {
  return REASON_DETAIL[reason];
}

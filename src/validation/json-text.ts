import type { ApiError } from '../errors/api-error.js';
import { type CodedErrorDetail, codedError } from '../errors/coded-error.js';
import { type Context, contextKey } from '../http/types.js';
import { jsonSyntaxErrorAt } from './json-syntax.js';

/** Bytes read as JSON text (RFC 8259): the value, or why they are not JSON. */
export type JsonText =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      /** `utf8`: not UTF-8 (section 8.1); `empty`: nothing but whitespace; `syntax`: not JSON. */
      readonly reason: 'utf8' | 'empty' | 'syntax';
      /** The parser's message, at most 120 characters (blank text has one too); empty for `utf8`. */
      readonly message: string;
      /** For `syntax`: where the text stops being JSON (see `jsonSyntaxErrorAt`) and what is there. */
      readonly at?: { readonly offset: number; readonly found: string | undefined };
    };

// RFC 8259 section 8.1: JSON exchanged between systems is UTF-8. `fatal` refuses malformed bytes
// instead of replacing them with U+FFFD; `ignoreBOM` keeps a byte order mark, which JSON.parse refuses.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const NOT_UTF8: JsonText = Object.freeze({ ok: false, reason: 'utf8', message: '' });
/** Nothing but JSON's insignificant whitespace (RFC 8259 section 2). */
const BLANK = /^[ \t\n\r]*$/;

/**
 * Read bytes as JSON text: strict UTF-8, no byte order mark, not blank (RFC 8259 sections 2 and 8.1).
 *
 * @example
 * parseJsonText(new TextEncoder().encode('{"a":1}')); // { ok: true, value: { a: 1 } }
 */
export function parseJsonText(bytes: Uint8Array): JsonText {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return NOT_UTF8;
  }
  return jsonTextOf(text);
}

/**
 * A string read as JSON text: the value, or why it is not (blank, or not JSON), with the parser's
 * message. {@link parseJsonText} after the UTF-8 check; a framework adapter for a body its framework
 * already decoded.
 */
export function jsonTextOf(text: string): JsonText {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const message = error instanceof SyntaxError ? error.message.slice(0, 120) : 'unreadable';
    if (BLANK.test(text)) return { ok: false, reason: 'empty', message };
    const offset = jsonSyntaxErrorAt(text);
    // -1: valid JSON that JSON.parse could not take (nesting deeper than its stack).
    if (offset === -1) return { ok: false, reason: 'syntax', message };
    return { ok: false, reason: 'syntax', message, at: { offset, found: text[offset] } };
  }
}

/**
 * The 400 for a body that is not JSON text (`invalid-utf8` or `malformed-json`, pointing at the whole
 * body): what `decodeJsonBody` answers, and what the framework adapters answer for a body their
 * framework's JSON parser refuses.
 */
export function malformedJsonError(text: Exclude<JsonText, { ok: true }>, cause?: unknown): ApiError {
  const problem: Omit<CodedErrorDetail, 'source'> =
    text.reason === 'utf8'
      ? {
          code: 'invalid-utf8',
          title: 'Invalid UTF-8',
          detail: 'The body is not valid UTF-8; JSON text must be encoded in UTF-8 (RFC 8259 section 8.1).',
        }
      : {
          code: 'malformed-json',
          title: 'Malformed JSON',
          detail:
            text.reason === 'empty'
              ? 'The body is empty; a JSON object is expected.'
              : `The body is not valid JSON${syntaxDetail(text)}`,
        };
  return codedError(400, problem.code, {
    title: problem.title,
    detail: problem.detail,
    source: { pointer: '' },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Where the JSON stops, in the same words on every runtime (engines word `JSON.parse`'s errors their
 * own way); the parser's message only when the grammar finds no error (too deep for the parser).
 */
function syntaxDetail(text: Exclude<JsonText, { ok: true }>): string {
  const { at } = text;
  if (at === undefined) return text.message === '' ? '.' : `: ${text.message}`;
  const what = at.found === undefined ? 'end of text' : `character ${JSON.stringify(at.found)}`;
  return `: unexpected ${what} at position ${at.offset} (RFC 8259 section 2).`;
}

interface Parsed {
  readonly bytes: Uint8Array;
  readonly text: JsonText;
}

const PARSED_BODY = contextKey<Parsed | undefined>('request body parsed as JSON');

/**
 * The request body parsed once for two readers: a layer that only looks at it (the idempotency
 * fingerprint) parses with {@link peekJsonBody}, and the body decoder then takes that parse with
 * {@link takeJsonBody} instead of parsing the same bytes again. Taking clears it, so a second decode
 * parses afresh and never sees a value the handler changed.
 */
export function peekJsonBody(ctx: Context, bytes: Uint8Array): JsonText {
  const parsed = ctx.get(PARSED_BODY);
  if (parsed !== undefined && parsed.bytes === bytes) return parsed.text;
  const text = parseJsonText(bytes);
  ctx.set(PARSED_BODY, { bytes, text });
  return text;
}

/** The body's parse left by {@link peekJsonBody} (then forgotten), else a fresh one. */
export function takeJsonBody(ctx: Context, bytes: Uint8Array): JsonText {
  const parsed = ctx.get(PARSED_BODY);
  if (parsed === undefined || parsed.bytes !== bytes) return parseJsonText(bytes);
  ctx.set(PARSED_BODY, undefined);
  return parsed.text;
}

/**
 * Media-type parameters (RFC 9110 section 5.6.6): `;`-separated `name=value` pairs whose value is a
 * token or a quoted-string (section 5.6.4), where `;`, `,` and `=` inside quotes are part of the value.
 * The request `Content-Type` checks read them here; `Accept` is read by `src/http/accept.ts`.
 */
import { HTTP_TOKEN } from '../http/field-syntax.js';

/** Split on `separator`, except inside quoted strings (where a backslash escapes the next character). */
function splitOutsideQuotes(input: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < input.length; i++) {
    const char = input[i];
    if (quoted) {
      if (char === '\\') i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') {
      quoted = true;
    } else if (char === separator) {
      parts.push(input.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(input.slice(start));
  return parts;
}

/** A token as it is, a quoted-string without its quotes and escapes, or `undefined` when malformed. */
function unquote(value: string): string | undefined {
  if (!value.startsWith('"')) return HTTP_TOKEN.test(value) ? value : undefined;
  if (value.length < 2 || !value.endsWith('"')) return undefined;
  let out = '';
  for (let i = 1; i < value.length - 1; i++) {
    const char = value[i]!;
    if (char === '\\') {
      i++;
      if (i >= value.length - 1) return undefined;
      out += value[i];
    } else if (char === '"') {
      return undefined;
    } else {
      out += char;
    }
  }
  return out;
}

/**
 * The parameters of a media type (`application/json; charset="UTF-8"`): names lower-cased, values
 * unquoted, the first of a repeated name kept; `undefined` when a parameter is malformed. Empty
 * parameters (`;;`) are skipped, as the grammar allows.
 *
 * @example mediaTypeParameters('application/vnd.api+json; version="1;x"') // Map { 'version' => '1;x' }
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-5.6.6
 */
export function mediaTypeParameters(value: string): Map<string, string> | undefined {
  const params = new Map<string, string>();
  // Most media types a client sends have no parameter: nothing to split.
  if (!value.includes(';')) return params;
  for (const raw of splitOutsideQuotes(value, ';').slice(1)) {
    if (raw.trim() === '') continue;
    const equals = raw.indexOf('=');
    if (equals === -1) return undefined;
    const name = raw.slice(0, equals).trim().toLowerCase();
    const parsed = unquote(raw.slice(equals + 1).trim());
    if (!HTTP_TOKEN.test(name) || parsed === undefined) return undefined;
    if (!params.has(name)) params.set(name, parsed);
  }
  return params;
}

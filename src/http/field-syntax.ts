/** Small pieces of the HTTP field syntax (RFC 9110 section 5.6) shared by the primitives. */

/**
 * Strip optional whitespace (OWS: spaces and tabs, RFC 9110 section 5.6.3) from both ends of a
 * field value, in linear time: header values are client-controlled and may be long, so no
 * backtracking regular expression runs over them.
 */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start++;
  while (end > start && isOws(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isOws(code: number): boolean {
  return code === 32 || code === 9;
}

/** An RFC 9110 section 5.6.2 token: field names, media-type and parameter names, directive names. */
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

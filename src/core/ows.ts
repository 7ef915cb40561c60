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

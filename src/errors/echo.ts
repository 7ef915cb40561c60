/**
 * The longest piece of client-supplied text (a field or parameter name, a value, a media type
 * parameter) an error document repeats, in UTF-16 code units. Past it, the error shows a prefix and
 * `…`: enough to recognise the name, while a 100 KB name costs the answer (and an idempotency store
 * keeping that answer) about 40 bytes, not 200 KB.
 */
export const MAX_ECHO_LENGTH = 40;

/** `text` when it is short, else its first {@link MAX_ECHO_LENGTH} code units (no split pair) and `…`. */
export function echo(text: string): string {
  if (text.length <= MAX_ECHO_LENGTH) return text;
  const last = text.charCodeAt(MAX_ECHO_LENGTH - 1);
  const cut = last >= 0xd800 && last <= 0xdbff ? MAX_ECHO_LENGTH - 1 : MAX_ECHO_LENGTH;
  return `${text.slice(0, cut)}…`;
}

/** Whether `text` is repeated whole by {@link echo}. */
export function echoedWhole(text: string): boolean {
  return text.length <= MAX_ECHO_LENGTH;
}

/**
 * Text no store can hold as given: U+0000, which PostgreSQL's `text` refuses, and lone surrogates,
 * which are not Unicode scalar values (RFC 8259 section 8.2; I-JSON, RFC 7493 section 2.1) and
 * which UTF-8 encoders replace by U+FFFD. Matched with the `u` flag, as JSON Schema patterns are.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is what this matches.
export const UNSTORABLE_TEXT = /[\u0000\uD800-\uDFFF]/u;
/** Whether a store can hold `text` as given: no U+0000, no lone surrogate ({@link UNSTORABLE_TEXT}). */
export function isStorableText(text: string): boolean {
  return !UNSTORABLE_TEXT.test(text);
}

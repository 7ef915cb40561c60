/**
 * The failure messages the strict object codec attaches and `toFieldErrors` maps to error codes: a
 * module of their own, so that reading a decode failure loads no codec library.
 */
export const UNKNOWN_FIELD = 'unknown-field';
export const MISSING_FIELD = 'missing-field';
/**
 * The message of the one failure a strict object adds, in place of the unknown-field failures past
 * {@link MAX_UNKNOWN_FIELD_FAILURES}; its `value` is how many were left out.
 */
export const OMITTED_FAILURES = 'omitted-failures';
/** A strict object reports at most this many unknown fields one by one, then counts the rest. */
export const MAX_UNKNOWN_FIELD_FAILURES = 1000;

/**
 * The checks of a factory's options, run once when the factory is called (never per request), and
 * their one message form: `owner: "option" must be <what it must be>, got <what was given>`. A bad
 * option is the programmer's mistake, so it is a `TypeError` at start-up, not an `ApiError`.
 */

/** A given value as a message shows it: strings quoted, numbers as written, anything else by kind. */
export function shownValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  if (value === undefined || value === null) return String(value);
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** The one refusal of an option: `owner: "option" must be <expected>, got <value>`. */
export function optionError(owner: string, option: string, expected: string, value: unknown): TypeError {
  return new TypeError(`${owner}: "${option}" must be ${expected}, got ${shownValue(value)}`);
}

/** `value`, or `fallback` when it is left out: a finite number above 0 (a duration, a rate). */
export function positiveNumber(
  owner: string,
  option: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw optionError(owner, option, 'a positive number', value);
  }
  return value;
}

/** `value`, or `fallback` when it is left out: a safe integer of at least `min` (1 unless given). */
export function positiveInteger(
  owner: string,
  option: string,
  value: number | undefined,
  fallback: number,
  min = 1,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw optionError(
      owner,
      option,
      min === 1 ? 'a positive integer' : `an integer of at least ${min}`,
      value,
    );
  }
  return value;
}

/** `value` when it is a function (a callback option), else the refusal naming what it is for. */
export function functionOption<F>(owner: string, option: string, value: F, what = 'a function'): F {
  if (typeof value !== 'function') throw optionError(owner, option, what, value);
  return value;
}

/**
 * The `realm` of a `WWW-Authenticate` challenge (RFC 6750 section 3), `api` when left out: a
 * quoted-string's characters without `"` or `\` (RFC 9110 section 5.6.4), so it is sent as written.
 */
export function realmOption(owner: string, value: string | undefined): string {
  if (value === undefined) return 'api';
  if (typeof value !== 'string' || !/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/.test(value)) {
    throw optionError(owner, 'realm', 'printable ASCII without " or \\', value);
  }
  return value;
}

/** `value`, or `fallback` when it is left out: an integer from `min` to `max`, both included. */
export function integerInRange(
  owner: string,
  option: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw optionError(owner, option, `an integer from ${min} to ${max}`, value);
  }
  return value;
}

/** `value`, or `fallback` when it is left out: `true` or `false`. */
export function booleanOption(
  owner: string,
  option: string,
  value: boolean | undefined,
  fallback: boolean,
): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw optionError(owner, option, 'a boolean', value);
  return value;
}

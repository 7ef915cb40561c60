/** A token that is malformed, badly signed, expired or missing a required claim. */
export class InvalidTokenError extends Error {
  override readonly name = 'InvalidTokenError';
}

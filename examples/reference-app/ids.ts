import * as t from 'io-ts';
import { queryInteger, withSchema } from 'rest-conventions/validation';

const positive = queryInteger({ min: 1 });

/**
 * The `params` codec of a numeric id (`/books/{id}`, `/orders/{id}`): 1 and up, written without a
 * leading zero so that one resource has one URL. A route declaring it answers 404 for any other
 * segment before its middleware runs (docs/core.md, "Declared routes"), so loaders take the id as
 * given.
 */
export const numericId = withSchema(
  new t.Type<number, string, unknown>(
    'a numeric id',
    positive.is,
    (u, c) => (typeof u === 'string' && /^[1-9]/.test(u) ? positive.validate(u, c) : t.failure(u, c)),
    String,
  ),
  { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
);

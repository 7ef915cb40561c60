import { numericId, stringId } from 'rest-conventions/validation';

/**
 * The ids of the app's resources, each the codec of the id as text: the `id` of its `ResourceSchema`
 * (the resource object's `id` member in the document) and the `params` codec of every route whose
 * path names it, so a client passes `data.id` back into the path as it is (docs/openapi.md, "Path
 * ids"). A route declaring one answers 404 for any other segment before its middleware runs
 * (docs/core.md, "Declared routes"), so loaders take the id as given.
 */

/** Books and orders: 1 and up, without a leading zero, so that one resource has one URL. */
export const bookId = numericId();
export const orderId = numericId();
/** An order's payments: 1 and up, as orders. */
export const paymentId = numericId();

/** Users are named by their token's `sub`: URL-safe characters (RFC 3986 `unreserved`), at most 64. */
export const userId = stringId({
  pattern: /^[A-Za-z0-9._~-]{1,64}$/,
  maxLength: 64,
  description: "A user's id: the `sub` of their tokens.",
  example: '1',
});

/** Standards: the lower-case UUID the store gives each one (RFC 9562). */
export const standardId = stringId({
  pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  maxLength: 36,
  description: 'A UUID (RFC 9562), lower-case.',
  example: '0b6f6d6e-3c1a-4f7e-9a51-6a2d4f1c9e21',
});

import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { integer, positiveInteger, strictObject, text } from '../../src/validation/codecs.js';
import { decodeJsonBody } from '../../src/validation/decode-body.js';
import { recordingLogger } from '../core/send.js';

/** The order input of the reference app: `{ "bookId": 1, "quantity": 2 }`, with an optional note. */
export const OrderInput = strictObject(
  { bookId: positiveInteger, quantity: integer({ min: 1, max: 100 }) },
  { note: text({ maxLength: 20 }) },
);

/** A tiny app whose `POST /orders` decodes its body and echoes the decoded value as attributes. */
export function orderApp(options: { readonly limit?: number } = {}) {
  return createApp({ logger: recordingLogger() }).route({
    method: 'POST',
    path: '/orders',
    handler: async (ctx) => {
      const input = await decodeJsonBody(ctx, {
        codec: OrderInput,
        type: 'orders',
        ...(options.limit === undefined ? {} : { limit: options.limit }),
      });
      return json(201, { data: { type: 'orders', id: '1', attributes: input } });
    },
  });
}

export const BARE = { 'content-type': 'application/json' };
export const DOCUMENT = { 'content-type': 'application/vnd.api+json' };

/** The same attributes as a JSON:API resource document. */
export const asDocument = (attributes: unknown) => JSON.stringify({ data: { type: 'orders', attributes } });

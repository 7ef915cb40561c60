import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestClient } from '../support/clients.js';
import { APP_MATRIX, bearer, referenceAppOn } from '../support/reference-app.js';

const BOOK_COUNT = 14;

/** An independent statement of what a valid order body is (docs/validation.md; JSON:API 1.0 "Errors"). */
function badFields(body: Record<string, unknown>): string[] {
  const bad: string[] = [];
  for (const key of Object.keys(body)) if (key !== 'bookId' && key !== 'quantity') bad.push(key);
  const { bookId, quantity } = body;
  if (!(typeof bookId === 'number' && Number.isSafeInteger(bookId) && bookId >= 1)) bad.push('bookId');
  if (!(typeof quantity === 'number' && Number.isSafeInteger(quantity) && quantity >= 1 && quantity <= 100))
    bad.push('quantity');
  // A well-formed body naming a book that does not exist is refused after decoding, at bookId.
  if (bad.length === 0 && (bookId as number) > BOOK_COUNT) bad.push('bookId');
  return bad.sort();
}

const fieldValue = fc.oneof(
  fc.integer({ min: -5, max: 120 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 5 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
);

const validBody = fc.record({
  bookId: fc.integer({ min: 1, max: BOOK_COUNT }),
  quantity: fc.integer({ min: 1, max: 100 }),
});

const anyBody = fc.record(
  {
    bookId: fc.oneof(fc.integer({ min: 1, max: BOOK_COUNT }), fieldValue),
    quantity: fc.oneof(fc.integer({ min: 1, max: 100 }), fieldValue),
    extra: fieldValue,
  },
  { requiredKeys: [] },
);

// Valid bodies are rare among arbitrary ones: give them a third of the runs so both branches run.
const orderBody = fc.oneof({ arbitrary: validBody, weight: 1 }, { arbitrary: anyBody, weight: 2 });

describe.each(APP_MATRIX)(
  'POST /orders bodies through the $adapter adapter on $dataStore',
  ({ connect, dataStore }) => {
    let built: Awaited<ReturnType<typeof referenceAppOn>>;
    let client: TestClient;
    let token: string;

    beforeAll(async () => {
      built = await referenceAppOn(dataStore);
      client = await connect(built.app);
      token = await bearer('1');
    });
    afterAll(async () => {
      await client.close();
      await built.close();
    });

    it('creates an order iff the body is valid, else 400 with exactly one pointer per bad field', async () => {
      await fc.assert(
        fc.asyncProperty(orderBody, fc.boolean(), async (body, asDocument) => {
          const response = await client.request('POST', '/orders', {
            headers: {
              'content-type': asDocument ? 'application/vnd.api+json' : 'application/json',
              authorization: token,
            },
            body: JSON.stringify(asDocument ? { data: { type: 'orders', attributes: body } } : body),
          });
          const expected = badFields(body);
          if (expected.length === 0) {
            expect(response.status).toBe(201);
            expect(response.body.data.attributes).toEqual(body);
          } else {
            expect(response.status).toBe(400);
            const prefix = asDocument ? '/data/attributes/' : '/';
            const pointers = response.body.errors
              .map((e: { source: { pointer: string } }) => e.source.pointer)
              .sort();
            expect(pointers).toEqual(expected.map((field) => prefix + field));
          }
        }),
        { numRuns: 60 },
      );
    });

    it('maps any non-JSON text to a 400 malformed-json error document', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.string({ minLength: 1, maxLength: 30 }).filter((text) => {
            try {
              JSON.parse(text);
              return false;
            } catch {
              return true;
            }
          }),
          async (text) => {
            const response = await client.request('POST', '/orders', {
              headers: { 'content-type': 'application/json', authorization: token },
              body: text,
            });
            expect(response.status).toBe(400);
            expect(response.body.errors[0].code).toBe('malformed-json');
          },
        ),
        { numRuns: 40 },
      );
    });
  },
);

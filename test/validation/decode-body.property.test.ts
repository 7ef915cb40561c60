import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapePointerToken } from '../../src/validation/field-errors.js';
import { send } from '../core/send.js';
import { asDocument, BARE, DOCUMENT, orderApp } from './order-app.js';

const app = orderApp();

const nonInteger = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n));
const notANumber = fc.oneof(
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.nat(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);
const validNote = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== '');

/** Each field is absent, valid or invalid; the arbitrary says which, so the test knows what to expect. */
type Field = { readonly kind: 'absent' } | { readonly kind: 'valid' | 'invalid'; readonly value: unknown };
const field = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>): fc.Arbitrary<Field> =>
  fc.oneof(
    fc.constant({ kind: 'absent' as const }),
    valid.map((value) => ({ kind: 'valid' as const, value })),
    invalid.map((value) => ({ kind: 'invalid' as const, value })),
  );

const KNOWN = new Set(['bookId', 'quantity', 'note']);
const input = fc.record({
  bookId: field(
    fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    fc.oneof(fc.integer({ max: 0 }), nonInteger, notANumber, fc.constantFrom(1e300, 2 ** 53, '1')),
  ),
  quantity: field(
    fc.integer({ min: 1, max: 100 }),
    fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 101 }), nonInteger, notANumber),
  ),
  note: field(
    validNote,
    fc.oneof(
      fc.constantFrom('', '   ', '\t'),
      fc.string({ minLength: 21, maxLength: 40 }),
      fc.integer(),
      fc.constant(null),
    ),
  ),
  unknown: fc.dictionary(
    fc.string({ maxLength: 10 }).filter((k) => !KNOWN.has(k)),
    fc.jsonValue({ maxDepth: 1 }),
    { maxKeys: 3 },
  ),
});
type Input = typeof input extends fc.Arbitrary<infer I> ? I : never;

function build({ bookId, quantity, note, unknown }: Input) {
  const body: Record<string, unknown> = {};
  const bad = new Set<string>();
  for (const [name, f] of [
    ['bookId', bookId],
    ['quantity', quantity],
    ['note', note],
  ] as const) {
    if (f.kind !== 'absent') body[name] = f.value;
    // A required field that is absent is bad; an absent optional one is fine.
    if (f.kind === 'invalid' || (f.kind === 'absent' && name !== 'note')) bad.add(name);
  }
  for (const [name, value] of Object.entries(unknown)) {
    Object.defineProperty(body, name, { value, enumerable: true, writable: true, configurable: true });
    bad.add(name);
  }
  return { body, bad };
}

const pointersOf = (res: { body: { errors: { source: { pointer: string } }[] } }) =>
  new Set(res.body.errors.map((e) => e.source.pointer));

describe('body validation properties', () => {
  it('decodes iff every field is valid and none is unknown, reporting exactly the bad fields', async () => {
    await fc.assert(
      fc.asyncProperty(input, fc.boolean(), async (generated, asJsonApi) => {
        const { body, bad } = build(generated);
        const res = asJsonApi
          ? await send(app, 'POST', '/orders', { headers: DOCUMENT, body: asDocument(body) })
          : await send(app, 'POST', '/orders', { headers: BARE, body: JSON.stringify(body) });
        if (bad.size === 0) {
          expect(res.status).toBe(201);
          expect(res.body.data.attributes).toEqual(body);
        } else {
          expect(res.status).toBe(400);
          const prefix = asJsonApi ? '/data/attributes' : '';
          expect(pointersOf(res)).toEqual(
            new Set([...bad].map((name) => `${prefix}/${escapePointerToken(name)}`)),
          );
          expect(res.body.errors).toHaveLength(bad.size);
        }
      }),
    );
  });

  it('decodes bare attributes and a JSON:API resource document to the same value', async () => {
    const valid = fc.record(
      {
        bookId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        quantity: fc.integer({ min: 1, max: 100 }),
        note: validNote,
      },
      { requiredKeys: ['bookId', 'quantity'] },
    );
    await fc.assert(
      fc.asyncProperty(valid, async (attributes) => {
        const bare = await send(app, 'POST', '/orders', { headers: BARE, body: JSON.stringify(attributes) });
        const document = await send(app, 'POST', '/orders', {
          headers: DOCUMENT,
          body: asDocument(attributes),
        });
        expect(bare.status).toBe(201);
        expect(document.status).toBe(201);
        expect(document.body.data.attributes).toEqual(bare.body.data.attributes);
        expect(bare.body.data.attributes).toEqual(attributes);
      }),
    );
  });

  it('answers any byte sequence with 201 or a 4xx error document, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.json(), fc.uint8Array({ maxLength: 64 })),
        fc.constantFrom(BARE, DOCUMENT),
        async (body, headers) => {
          const res = await send(app, 'POST', '/orders', { headers, body });
          expect([201, 400, 403, 409]).toContain(res.status);
        },
      ),
    );
  });
});

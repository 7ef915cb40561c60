import { describe, expectTypeOf, it } from 'vitest';
import { conditional } from '../../src/caching/index.js';
import { defineRoute, json } from '../../src/core/index.js';
import { ownedResource } from '../../src/ownership/index.js';
import { queryInteger } from '../../src/validation/query-codecs.js';

interface Note {
  readonly id: string;
  readonly ownerId: string;
  readonly version: number;
}

describe('ownedResource types', () => {
  const ownNote = ownedResource({
    noun: 'note',
    load: async (id): Promise<Note | undefined> => ({ id, ownerId: 'u', version: 1 }),
    ownerOf: (note) => note.ownerId,
  });

  it('hands the handler the record typed, directly and through conditional({ load })', () => {
    const checked = conditional({
      load: ownNote.load,
      validators: (_ctx, note) => ({ etag: `"${note.version}"` }),
    });
    defineRoute({
      method: 'GET',
      path: '/notes/{id}',
      use: [ownNote],
      handler: (ctx) => {
        expectTypeOf(ctx.var.note).toEqualTypeOf<Note>();
        return json(200, { meta: {} });
      },
    });
    defineRoute({
      method: 'GET',
      path: '/notes/{id}',
      use: [checked],
      handler: (ctx) => {
        expectTypeOf(ctx.var.entity).toEqualTypeOf<Note>();
        return json(200, { meta: {} });
      },
    });
  });

  it('needs the route to have its parameter', () => {
    const byKey = ownedResource({ param: 'note_id', load: () => undefined, ownerOf: () => 'u' });
    defineRoute({ method: 'GET', path: '/notes/{note_id}', use: [byKey], handler: () => json(200, {}) });
    // @ts-expect-error: /notes/{id} has no {note_id}
    defineRoute({ method: 'GET', path: '/notes/{id}', use: [byKey], handler: () => json(200, {}) });
  });

  it('loads by the id the route decoded, and fits only a route that decodes it so', () => {
    const byNumber = ownedResource({
      noun: 'order',
      load: (id: number) => ({ id, ownerId: 'u' }),
      ownerOf: (order) => order.ownerId,
    });
    const numericId = queryInteger({ min: 1 });
    defineRoute({
      method: 'GET',
      path: '/orders/{id}',
      params: { id: numericId },
      use: [byNumber],
      handler: (ctx) => {
        expectTypeOf(ctx.var.order.id).toEqualTypeOf<number>();
        return json(200, {});
      },
    });
    // Through conditional's loader too: its layer reads the decoded id.
    const checked = conditional({ load: byNumber.load, validators: () => undefined });
    defineRoute({
      method: 'GET',
      path: '/orders/{id}',
      params: { id: numericId },
      use: [checked],
      handler: () => json(200, {}),
    });
    // @ts-expect-error: /orders/{id} without a codec leaves the id a string
    defineRoute({ method: 'GET', path: '/orders/{id}', use: [byNumber], handler: () => json(200, {}) });
    // @ts-expect-error: the same through conditional
    defineRoute({ method: 'GET', path: '/orders/{id}', use: [checked], handler: () => json(200, {}) });
  });
});

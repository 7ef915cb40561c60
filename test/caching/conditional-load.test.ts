import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { conditional } from '../../src/caching/conditional.js';
import { versionEtag } from '../../src/caching/entity-tag.js';
import { json } from '../../src/core/response.js';
import { ApiError } from '../../src/errors/api-error.js';
import type { Context } from '../../src/http/types.js';
import { send } from '../core/send.js';

interface Book {
  readonly id: string;
  readonly version: number;
}

function booksApp(books: Map<string, Book>) {
  const loads: string[] = [];
  const loaded = conditional({
    load: async (ctx: Context<{ readonly id: string }>) => {
      loads.push(ctx.params.id);
      return books.get(ctx.params.id);
    },
    validators: (_ctx, book) => (book === undefined ? undefined : { etag: versionEtag(book.version) }),
  });
  const app = createApp().route({
    method: 'GET',
    path: '/books/{id}',
    use: [loaded],
    handler: (ctx) => {
      const book = ctx.var.entity;
      if (book === undefined) throw new ApiError(404, { detail: 'No such book.' });
      return json(200, { data: { type: 'books', id: book.id, attributes: { version: book.version } } });
    },
  });
  return { app, loads };
}

describe('conditional({ load, validators })', () => {
  describe('when the entity exists', () => {
    it('loads it once for the validators and the handler', async () => {
      const { app, loads } = booksApp(new Map([['7', { id: '7', version: 3 }]]));
      const res = await send(app, 'GET', '/books/7');
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe(versionEtag(3));
      expect(res.body.data.attributes.version).toBe(3);
      expect(loads).toEqual(['7']);
    });

    it('answers 304 from the loaded entity without building a body', async () => {
      const { app, loads } = booksApp(new Map([['7', { id: '7', version: 3 }]]));
      const res = await send(app, 'GET', '/books/7', { headers: { 'if-none-match': versionEtag(3) } });
      expect(res.status).toBe(304);
      expect(loads).toEqual(['7']);
    });
  });

  describe('when the entity is absent', () => {
    it('hands the handler undefined (it answers 404)', async () => {
      const { app } = booksApp(new Map());
      expect((await send(app, 'GET', '/books/8')).status).toBe(404);
    });
  });

  it('refuses load without validators at start-up', () => {
    expect(() => conditional({ load: () => 1 } as never)).toThrow(/conditional: load needs validators/);
  });
});

import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json, noContent } from '../../src/core/response.js';
import { defineRoute } from '../../src/core/route.js';
import { openApiDocument } from '../../src/openapi/index.js';

describe('the media types of a response without a body schema', () => {
  const app = createApp();
  app.route(
    defineRoute({
      method: 'GET',
      path: '/page',
      produces: ['text/html'],
      responses: { 200: { description: 'A page' }, 304: { description: 'Not Modified' } },
      handler: () => json(200, '<p>hi</p>', { 'content-type': 'text/html' }),
    }),
  );
  app.route(
    defineRoute({
      method: 'DELETE',
      path: '/things/{id}',
      responses: { 204: { description: 'Gone' } },
      handler: () => noContent(),
    }),
  );
  app.route(
    defineRoute({
      method: 'GET',
      path: '/plain',
      responses: { 200: { description: 'Something' } },
      handler: () => json(200, {}),
    }),
  );
  const document = openApiDocument(app.routes(), { title: 't', version: '1' });

  it('are declared (as text) when the route names what it produces', () => {
    expect(document.paths?.['/page']?.get?.responses['200']?.content).toEqual({
      'text/html': { schema: { type: 'string' } },
    });
    expect(document.paths?.['/page']?.get?.responses['304']?.content).toBeUndefined();
  });

  it('are not invented for a 204 or for a route that does not name what it produces', () => {
    expect(document.paths?.['/things/{id}']?.delete?.responses['204']?.content).toBeUndefined();
    expect(document.paths?.['/plain']?.get?.responses['200']?.content).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { type AppOptions, createApp } from '../../src/core/app.js';
import { noContent } from '../../src/core/response.js';
import { parsePattern } from '../../src/core/route-pattern.js';

const register = (path: string, options?: AppOptions) =>
  createApp(options).route({ method: 'GET', path, handler: () => noContent() });

describe('route naming rules', () => {
  describe('when a pattern puts an operation in the path', () => {
    it.each([
      ['/orders/{id}/delete', /"delete" names an operation/],
      ['/books/create', /names an operation \("create"\)/],
      ['/orders/{id}/cancel-request', /names an operation \("cancel"\)/],
    ])('refuses %s', (path, message) => {
      expect(() => register(path)).toThrow(TypeError);
      expect(() => register(path)).toThrow(message);
    });
  });

  describe('when a pattern carries a query or fragment', () => {
    it.each(['/orders?action=create', '/orders#create'])('refuses %s', (path) => {
      expect(() => register(path)).toThrow(TypeError);
      expect(() => register(path)).toThrow(/query or fragment/);
    });
  });

  describe('when a segment is not lower-case hyphenated words', () => {
    it.each(['/getBooks', '/accountType', '/account_types', '/Books', '/books/{id}/account--type'])(
      'refuses %s',
      (path) => {
        expect(() => register(path)).toThrow(TypeError);
        expect(() => register(path)).toThrow(/lower-case words separated by hyphens/);
      },
    );
  });

  describe('when a collection segment before a parameter is singular', () => {
    it('refuses /book/{id}, suggesting the plural', () => {
      expect(() => register('/book/{id}')).toThrow(TypeError);
      expect(() => register('/book/{id}')).toThrow(/"book" must be a plural noun \(e\.g\. "books"\)/);
    });
  });

  describe('when a pattern follows the conventions', () => {
    it.each([
      '/users/{id}/account-type',
      '/api/v1/standards',
      '/v2/users/{id}',
      '/books',
      '/books/{id}',
      '/users/{user_id}/orders/{order_id}',
      '/',
    ])('accepts %s', (path) => {
      expect(() => register(path)).not.toThrow();
    });
  });

  describe('when the rules are relaxed', () => {
    it('accepts a listed legacy segment', () => {
      expect(() => register('/person/{id}', { naming: { allowSegments: ['person'] } })).not.toThrow();
      expect(() => register('/person/{id}')).toThrow(TypeError);
    });

    it('accepts anything well-formed when enforcement is off', () => {
      expect(() => register('/getBooks', { naming: { enforce: false } })).not.toThrow();
    });

    it('still refuses a malformed pattern when enforcement is off', () => {
      for (const bad of ['books', '/books/{id', '/books/{}', '/books/{id}/{id}', '/a//b', '/x?y']) {
        expect(() => parsePattern(bad, { enforce: false }), bad).toThrow(TypeError);
      }
    });
  });
});

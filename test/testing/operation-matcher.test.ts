import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { operationMatcher } from '../../src/testing/operation-matcher.js';

const op = (id: string) => ({ operationId: id, responses: {} });
const document = {
  openapi: '3.1.1',
  info: { title: 'Books', version: '1' },
  paths: {
    '/books/{id}': { get: op('getBook'), delete: op('deleteBook') },
    '/books/search': { 'x-oai-additionalOperations': { QUERY: op('searchBooks') } },
    '/books/latest': { get: op('latestBook') },
  },
} as unknown as OpenApiDocument;

describe('operationMatcher', () => {
  const match = operationMatcher(document);

  it('finds the operation a method and a concrete path address, static segments first', () => {
    expect(match('GET', '/books/7')).toMatchObject({
      path: '/books/{id}',
      method: 'GET',
      operation: { operationId: 'getBook' },
      params: { id: '7' },
    });
    expect(match('GET', '/books/latest')?.operation.operationId).toBe('latestBook');
    expect(match('DELETE', '/books/latest')?.operation.operationId).toBe('deleteBook');
  });

  it('serves HEAD by GET, reads QUERY from either form, and takes a trailing slash', () => {
    expect(match('HEAD', '/books/7/')?.operation.operationId).toBe('getBook');
    expect(match('QUERY', '/books/search')).toMatchObject({
      method: 'QUERY',
      operation: { operationId: 'searchBooks' },
    });
    expect(match('GET', '/books/a%20b')?.params).toEqual({ id: 'a b' });
    expect(match('GET', '/books/%E0')?.params).toEqual({ id: '%E0' });
  });

  it('answers undefined for a method or path the document does not have', () => {
    expect(match('PUT', '/books/7')).toBeUndefined();
    expect(match('BREW', '/books/7')).toBeUndefined();
    expect(match('GET', '/authors/7')).toBeUndefined();
  });
});

import fc from 'fast-check';
import createHttpError from 'http-errors';
import { describe, expect, it } from 'vitest';
import { ApiError, statusPhrase, toApiError } from '../../src/errors/index.js';

// RFC 9110 section 15.5.14 and 15.5.21 renamed these; http-errors keeps the RFC 7231 names.
const RENAMED = new Map([
  [413, 'Content Too Large'],
  [422, 'Unprocessable Content'],
]);

describe('status phrases without http-errors', () => {
  it('name every 4xx and 5xx status as http-errors does, but for the two RFC 9110 renamed', () => {
    for (let status = 400; status <= 599; status++) {
      expect(statusPhrase(status), String(status)).toBe(
        RENAMED.get(status) ?? createHttpError(status).message,
      );
    }
  });

  it('recognise what http-errors recognises as its errors, and keep their status and exposed message', () => {
    const thrown = fc.oneof(
      fc
        .tuple(fc.integer({ min: 400, max: 599 }), fc.string({ maxLength: 20 }))
        .map(([status, message]) => createHttpError(status, message)),
      fc
        .record({
          status: fc.integer(),
          statusCode: fc.integer(),
          expose: fc.oneof(fc.boolean(), fc.constant('yes')),
        })
        .map((fields) => Object.assign(new Error('plain'), fields)),
      fc.record({ status: fc.integer({ min: 400, max: 599 }), expose: fc.boolean() }),
      fc.anything(),
    );
    fc.assert(
      fc.property(thrown, (value) => {
        const error = toApiError(value);
        const message = value instanceof Error ? value.message : undefined;
        const recognised = createHttpError.isHttpError(value) && value.status >= 400 && value.status <= 599;
        expect(error.status).toBe(recognised ? (value as { status: number }).status : 500);
        const exposed = recognised && (value as { expose: boolean }).expose && error.status < 500;
        expect(error.errors[0]?.detail).toBe(exposed ? message : statusPhrase(error.status));
      }),
    );
    expect(new ApiError(413).errors[0]?.title).toBe('Content Too Large');
  });
});

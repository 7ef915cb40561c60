import createHttpError from 'http-errors';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { ApiError, isApiError, statusCode, statusPhrase } from '../../src/errors/api-error.js';
import { problemDocument } from '../../src/errors/error-document.js';
import { toApiError } from '../../src/errors/to-api-error.js';
import { recordingLogger, send } from '../core/send.js';

function throwing(thrown: () => unknown) {
  const logger = recordingLogger();
  const app = createApp({ logger }).route({
    method: 'GET',
    path: '/books/{id}',
    handler: () => {
      throw thrown();
    },
  });
  return { app, logger };
}

const PROBLEM = { accept: 'application/problem+json, application/vnd.api+json;q=0.5' };

describe('ApiError', () => {
  it('refuses a status outside 400..599', () => {
    for (const status of [200, 399, 600, 404.5, Number.NaN]) {
      expect(() => new ApiError(status), String(status)).toThrow(TypeError);
    }
  });

  it('defaults code, title and detail from the status', () => {
    const error = new ApiError(415);
    expect(error.errors).toEqual([
      { code: 'unsupported-media-type', title: 'Unsupported Media Type', detail: 'Unsupported Media Type' },
    ]);
    expect(statusCode(418)).toBe('i-m-a-teapot');
    expect(statusPhrase(404)).toBe('Not Found');
  });

  it('is recognised across copies of the module by its brand', () => {
    expect(isApiError(new ApiError(400))).toBe(true);
    expect(isApiError({ [Symbol.for('rest-conventions.ApiError')]: true })).toBe(true);
    expect(isApiError(new Error('x'))).toBe(false);
    expect(isApiError(null)).toBe(false);
  });
});

describe('error rendering', () => {
  describe('when a handler throws an ApiError', () => {
    it('renders a JSON:API error document with status as a string and no-store', async () => {
      const { app } = throwing(
        () =>
          new ApiError(422, { code: 'bad-isbn', detail: 'The ISBN is wrong.', source: { pointer: '/isbn' } }),
      );
      const res = await send(app, 'GET', '/books/1');
      expect(res.status).toBe(422);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-type']).toBe('application/vnd.api+json');
      expect(res.body).toEqual({
        errors: [
          {
            status: '422',
            code: 'bad-isbn',
            title: 'Unprocessable Content',
            detail: 'The ISBN is wrong.',
            source: { pointer: '/isbn' },
          },
        ],
      });
    });

    it('sends its headers', async () => {
      const { app } = throwing(() => new ApiError(503, { headers: { 'retry-after': '30' } }));
      const res = await send(app, 'GET', '/books/1');
      expect(res.headers['retry-after']).toBe('30');
    });

    it('renders several problems as several error objects', async () => {
      const { app } = throwing(
        () =>
          new ApiError(400, {
            errors: [
              { code: 'invalid-field', detail: 'a', source: { pointer: '/a' } },
              { code: 'unknown-parameter', detail: 'b', source: { parameter: 'sort' } },
              { code: 'invalid-header', detail: 'c', source: { header: 'If-Match' }, title: 'Bad header' },
            ],
          }),
      );
      const res = await send(app, 'GET', '/books/1');
      expect(res.body.errors).toHaveLength(3);
      expect(res.body.errors.map((e: { status: string }) => e.status)).toEqual(['400', '400', '400']);
      expect(res.body.errors[2].title).toBe('Bad header');
      expect(res.body.errors[0].title).toBe('Bad Request');
    });

    it('renders a problem document when problem+json is asked for', async () => {
      const { app } = throwing(() => new ApiError(409, { code: 'version-conflict', detail: 'Stale.' }));
      const res = await send(app, 'GET', '/books/1', { headers: PROBLEM });
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(res.body).toEqual({
        type: 'about:blank',
        title: 'Conflict',
        status: 409,
        detail: 'Stale.',
        code: 'version-conflict',
      });
    });

    it('lists several problems in the errors member of the problem document', () => {
      const doc = problemDocument(
        new ApiError(400, {
          errors: [
            { code: 'a', detail: 'A' },
            { code: 'b', detail: 'B' },
          ],
        }),
        '/orders',
      );
      expect(doc).toMatchObject({ status: 400, code: 'multiple-errors', instance: '/orders' });
      expect(doc.errors).toHaveLength(2);
    });
  });

  describe('when a handler throws an http-errors error', () => {
    it('keeps its status and shows the message of a 4xx', async () => {
      const { app } = throwing(() => createHttpError(404, 'No book 1.'));
      const res = await send(app, 'GET', '/books/1');
      expect(res.status).toBe(404);
      expect(res.body.errors[0]).toMatchObject({ status: '404', code: 'not-found', detail: 'No book 1.' });
    });

    it('keeps the headers it asks to send', async () => {
      const { app } = throwing(() => createHttpError(405, 'Nope.', { headers: { Allow: 'GET' } }));
      const res = await send(app, 'GET', '/books/1');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET');
    });

    it('refuses headers that could inject a field', () => {
      const error = toApiError(
        createHttpError(401, { headers: { 'www-authenticate': 'Bearer\r\nSet-Cookie: a=b' } }),
      );
      expect(error.headers).toEqual({});
    });

    it('never shows the message of a 5xx', async () => {
      const { app, logger } = throwing(() =>
        createHttpError(503, 'connect ECONNREFUSED db-secret-host:5432'),
      );
      const res = await send(app, 'GET', '/books/1');
      expect(res.status).toBe(503);
      expect(res.text).not.toContain('db-secret-host');
      expect(res.body.errors[0].detail).toBe('Service Unavailable');
      expect(logger.entries).toHaveLength(1);
    });

    it('never shows the message of a 4xx marked not to be exposed', async () => {
      const { app } = throwing(() => createHttpError(400, 'internal parser state 0xdead', { expose: false }));
      const res = await send(app, 'GET', '/books/1');
      expect(res.status).toBe(400);
      expect(res.text).not.toContain('0xdead');
    });
  });

  describe('when a handler throws anything else', () => {
    it('answers a generic 500 and logs the real error with the request id', async () => {
      const thrown = new Error('password=hunter2');
      const { app, logger } = throwing(() => thrown);
      const res = await send(app, 'GET', '/books/1', { headers: { 'x-request-id': 'trace-42' } });
      expect(res.status).toBe(500);
      expect(res.text).not.toContain('hunter2');
      expect(res.body).toEqual({
        errors: [
          {
            status: '500',
            code: 'internal-server-error',
            title: 'Internal Server Error',
            detail: 'Internal Server Error',
          },
        ],
      });
      expect(logger.entries).toEqual([
        {
          level: 'error',
          message: 'request failed',
          fields: { requestId: 'trace-42', method: 'GET', route: '/books/{id}', status: 500, err: thrown },
        },
      ]);
    });

    it('logs the cause of an ApiError, never sends it', async () => {
      const cause = new Error('pool exhausted at 10.0.0.7');
      const { app, logger } = throwing(() => new ApiError(503, { cause }));
      const res = await send(app, 'GET', '/books/1');
      expect(res.text).not.toContain('10.0.0.7');
      expect(logger.entries[0]?.fields.err).toBe(cause);
    });

    it('logs a 503 that asks to come back, with no cause, as a warning naming its code, without a stack', async () => {
      const { app, logger } = throwing(
        () => new ApiError(503, { code: 'database-unavailable', headers: { 'retry-after': '5' } }),
      );
      const res = await send(app, 'GET', '/books/1');
      expect(res.status).toBe(503);
      expect(logger.entries).toEqual([
        {
          level: 'warn',
          message: 'request refused',
          fields: {
            requestId: expect.any(String),
            method: 'GET',
            route: '/books/{id}',
            status: 503,
            code: 'database-unavailable',
          },
        },
      ]);
    });

    it('does not log client errors', async () => {
      const { app, logger } = throwing(() => new ApiError(404));
      await send(app, 'GET', '/books/1');
      expect(logger.entries).toEqual([]);
    });
  });

  describe('when the response is a success', () => {
    it('does not add no-store', async () => {
      const app = createApp().route({
        method: 'GET',
        path: '/books',
        handler: () => json(200, { data: [] }),
      });
      expect((await send(app, 'GET', '/books')).headers['cache-control']).toBeUndefined();
    });
  });
});

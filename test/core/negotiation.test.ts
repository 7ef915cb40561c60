import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { ApiError } from '../../src/errors/api-error.js';
import {
  JSON_API,
  JSON_MEDIA,
  negotiateErrorType,
  negotiateResponseType,
  PROBLEM_JSON,
} from '../../src/http/media-types.js';
import { recordingLogger, send } from './send.js';

const app = createApp({ logger: recordingLogger() })
  .route({ method: 'GET', path: '/books', handler: () => json(200, { data: [] }) })
  .route({
    method: 'GET',
    path: '/books/{id}',
    handler: () => {
      throw new ApiError(404, { detail: 'No such book.' });
    },
  });

describe('content negotiation', () => {
  describe('when the client states no preference', () => {
    it.each([undefined, '', '*/*', 'application/*'])('answers JSON:API for Accept %j', async (accept) => {
      const res = await send(app, 'GET', '/books', accept === undefined ? {} : { headers: { accept } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(JSON_API);
    });
  });

  describe('when the client prefers one of the offered types', () => {
    it.each([
      ['application/json', JSON_MEDIA],
      ['application/vnd.api+json', JSON_API],
      ['application/json, application/vnd.api+json;q=0.5', JSON_MEDIA],
      ['application/json;q=0.5, application/vnd.api+json', JSON_API],
      ['application/vnd.api+json;q=0.1, application/json;q=0.2', JSON_MEDIA],
      ['text/html, application/json;q=0.9', JSON_MEDIA],
      ['application/json, */*;q=0.1', JSON_MEDIA],
    ])('answers %s with %s', async (accept, expected) => {
      const res = await send(app, 'GET', '/books', { headers: { accept } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(expected);
    });

    it('ignores a version parameter when choosing the format', () => {
      expect(negotiateResponseType('application/json; version="2"')).toBe(JSON_MEDIA);
      expect(negotiateResponseType('application/vnd.api+json;version=2')).toBe(JSON_API);
    });

    it('keeps a Content-Type the handler chose', async () => {
      const custom = createApp().route({
        method: 'GET',
        path: '/books',
        handler: () => json(200, { data: [] }, { 'content-type': 'application/json; charset=utf-8' }),
      });
      const res = await send(custom, 'GET', '/books');
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    });
  });

  describe('when nothing offered is acceptable', () => {
    it.each(['text/html', 'application/xml, text/*', 'application/json;q=0', 'application/problem+json'])(
      'answers 406 with an error document for %s',
      async (accept) => {
        const res = await send(app, 'GET', '/books', { headers: { accept } });
        expect(res.status).toBe(406);
        const errors = res.body.errors ?? [res.body];
        expect(errors[0]).toMatchObject({ code: 'not-acceptable' });
        expect(res.headers['cache-control']).toBe('no-store');
      },
    );

    it('names the Accept header as the source', async () => {
      const res = await send(app, 'GET', '/books', { headers: { accept: 'text/html' } });
      expect(res.headers['content-type']).toBe(JSON_API);
      expect(res.body.errors[0]).toMatchObject({ status: '406', source: { header: 'Accept' } });
    });
  });

  describe('when the client prefers application/problem+json for errors', () => {
    it('sends errors as a problem document', async () => {
      const accept = 'application/problem+json, application/vnd.api+json;q=0.9';
      const res = await send(app, 'GET', '/books/1', { headers: { accept } });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe(PROBLEM_JSON);
      expect(res.body).toMatchObject({
        type: 'about:blank',
        status: 404,
        title: 'Not Found',
        detail: 'No such book.',
      });
    });

    it('still sends successes as the preferred offered type', async () => {
      const accept = 'application/problem+json, application/json;q=0.9';
      const res = await send(app, 'GET', '/books', { headers: { accept } });
      expect(res.headers['content-type']).toBe(JSON_MEDIA);
    });

    it('sends a problem document whenever the client names problem+json, even ranked lower', async () => {
      const accept = 'application/vnd.api+json, application/problem+json;q=0.5';
      const res = await send(app, 'GET', '/books/1', { headers: { accept } });
      expect(res.headers['content-type']).toBe(PROBLEM_JSON);
      expect(res.body.status).toBe(404);
    });

    it('sends the error document when problem+json is refused with q=0', async () => {
      const accept = 'application/vnd.api+json, application/problem+json;q=0';
      const res = await send(app, 'GET', '/books/1', { headers: { accept } });
      expect(res.headers['content-type']).toBe(JSON_API);
      expect(res.body.errors[0].status).toBe('404');
    });

    it('sends errors of an unmatched path as a problem document too', async () => {
      const res = await send(app, 'GET', '/nothing', { headers: { accept: PROBLEM_JSON } });
      expect(res.headers['content-type']).toBe(PROBLEM_JSON);
      expect(res.body).toMatchObject({ status: 404, title: 'Not Found' });
    });
  });

  describe('the decision functions', () => {
    it('pick only offered types, or nothing, for any Accept value', () => {
      fc.assert(
        fc.property(fc.string(), (accept) => {
          const chosen = negotiateResponseType(accept);
          expect(chosen === undefined || chosen === JSON_API || chosen === JSON_MEDIA).toBe(true);
          expect([JSON_API, JSON_MEDIA, PROBLEM_JSON]).toContain(negotiateErrorType(accept));
        }),
      );
    });

    it('give the same answer when asked again (memoized)', () => {
      fc.assert(
        fc.property(
          fc.array(fc.constantFrom('application/json', JSON_API, PROBLEM_JSON, 'text/html', '*/*'), {
            maxLength: 4,
          }),
          fc.array(fc.constantFrom('', ';q=0', ';q=0.3', ';q=1'), { minLength: 4, maxLength: 4 }),
          (types, qs) => {
            const accept = types.map((t, i) => `${t}${qs[i]}`).join(', ');
            expect(negotiateResponseType(accept)).toBe(negotiateResponseType(accept));
            expect(negotiateErrorType(accept)).toBe(negotiateErrorType(accept));
          },
        ),
      );
    });
  });
});

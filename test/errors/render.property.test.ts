import { STATUS_CODES } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { ApiError, type ErrorDetail, type ErrorSource } from '../../src/errors/api-error.js';
import { escapePointerToken } from '../../src/validation/field-errors.js';
import { recordingLogger, send } from '../core/send.js';

const pointer = fc
  .array(fc.string({ maxLength: 8 }), { maxLength: 4 })
  .map((tokens) => tokens.map((t) => `/${escapePointerToken(t)}`).join(''));
const source: fc.Arbitrary<ErrorSource> = fc.oneof(
  pointer.map((p) => ({ pointer: p })),
  fc.string({ minLength: 1, maxLength: 20 }).map((parameter) => ({ parameter })),
  fc.constantFrom('Accept', 'Content-Type', 'If-Match', 'Idempotency-Key').map((header) => ({ header })),
);
const code = fc.stringMatching(/^[a-z][a-z0-9-]{0,30}$/);
const detail: fc.Arbitrary<ErrorDetail> = fc.record(
  { code, detail: fc.string({ maxLength: 80 }), source, title: fc.string({ maxLength: 40 }) },
  { requiredKeys: ['code', 'detail'] },
);
const status = fc.integer({ min: 400, max: 599 });
const apiError = fc.oneof(
  fc
    .record(
      { code, title: fc.string({ maxLength: 40 }), detail: fc.string({ maxLength: 80 }), source },
      { requiredKeys: [] },
    )
    .chain((options) => status.map((s) => new ApiError(s, options))),
  fc
    .array(detail, { minLength: 1, maxLength: 5 })
    .chain((errors) => status.map((s) => new ApiError(s, { errors }))),
);

/**
 * The reason phrase a status should carry, from a table independent of the code under test: node's
 * `http.STATUS_CODES`, with the two names RFC 9110 section 15 changed from RFC 7231's (node keeps the
 * old ones), and for a code no RFC registers, the phrase of its class (section 15: an unrecognized
 * status is understood as the x00 of its class).
 */
const RENAMED_BY_RFC_9110: Readonly<Record<number, string>> = {
  413: 'Content Too Large',
  422: 'Unprocessable Content',
};
function expectedPhrase(status: number): string {
  return RENAMED_BY_RFC_9110[status] ?? STATUS_CODES[status] ?? STATUS_CODES[status - (status % 100)]!;
}

function appThrowing() {
  let next: unknown;
  const logger = recordingLogger();
  const app = createApp({ logger }).route({
    method: 'GET',
    path: '/books',
    handler: () => {
      throw next;
    },
  });
  return { app, logger, throwNext: (value: unknown) => (next = value) };
}

describe('error mapping properties', () => {
  it('renders any ApiError as a valid JSON:API error document carrying the HTTP status as a string', async () => {
    const { app, throwNext } = appThrowing();
    await fc.assert(
      fc.asyncProperty(apiError, async (error) => {
        throwNext(error);
        const res = await send(app, 'GET', '/books'); // `send` validates the body against JSON:API 1.0
        expect(res.status).toBe(error.status);
        expect(res.body.errors).toHaveLength(error.errors.length);
        res.body.errors.forEach((object: Record<string, unknown>, i: number) => {
          const stated = error.errors[i]!;
          expect(object.status).toBe(String(error.status));
          expect(object.code).toBe(stated.code);
          expect(object.detail).toBe(stated.detail);
          expect(object.title).toBe(stated.title ?? expectedPhrase(error.status));
          expect(object.source).toEqual(stated.source);
        });
      }),
    );
  });

  it('renders any ApiError as a valid problem document when problem+json is preferred', async () => {
    const { app, throwNext } = appThrowing();
    await fc.assert(
      fc.asyncProperty(apiError, async (error) => {
        throwNext(error);
        const accept = 'application/problem+json, application/vnd.api+json;q=0.5';
        const res = await send(app, 'GET', '/books', { headers: { accept } }); // validated against RFC 9457
        expect(res.headers['content-type']).toBe('application/problem+json');
        expect(res.status).toBe(error.status);
        expect(res.body.status).toBe(error.status);
        expect(res.body.type).toBe('about:blank');
        expect(res.body.title).toBe(expectedPhrase(error.status));
        expect(res.body.title).not.toBe('');
        if (error.errors.length === 1) expect(res.body.detail).toBe(error.errors[0]!.detail);
        else expect(res.body.errors).toHaveLength(error.errors.length);
      }),
    );
  });

  it('never sends a secret carried by an unknown thrown value, and logs the real value with the request id', async () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{12,24}$/).map((s) => `SECRET${s}`);
    const thrownWith = (s: string): fc.Arbitrary<unknown> =>
      fc.oneof(
        fc.constant(new Error(`connection to db failed: ${s}`)),
        fc.constant(new TypeError(s)),
        fc.constant(Object.assign(new Error('plain'), { stack: `Error: at ${s}` })),
        fc.constant(new Error('outer', { cause: new Error(s) })),
        fc.constant(s),
        fc.constant({ message: s, status: 418 }),
        fc.constant({ status: 500, expose: true, message: s }),
        fc.constant(Object.assign(new Error(s), { status: 502, statusCode: 502, expose: true })),
        fc.anything().map((value) => ({ value, secret: s })),
        fc.anything().map((value) => [value, s]),
      );
    const { app, logger, throwNext } = appThrowing();
    await fc.assert(
      fc.asyncProperty(
        secret.chain((s) => thrownWith(s).map((thrown) => ({ s, thrown }))),
        fc.boolean(),
        async ({ s, thrown }, problem) => {
          logger.entries.length = 0;
          throwNext(thrown);
          const headers: Record<string, string> = problem
            ? { accept: 'application/problem+json, */*;q=0.1' }
            : {};
          const res = await send(app, 'GET', '/books', { headers });
          expect(res.status).toBeGreaterThanOrEqual(500);
          expect(res.text).not.toContain(s);
          expect(JSON.stringify(res.headers)).not.toContain(s);
          expect(logger.entries).toHaveLength(1);
          const fields = logger.entries[0]!.fields;
          expect(fields.requestId).toBe(res.headers['x-request-id']);
          expect(fields.err).toBe(thrown);
        },
      ),
    );
  });

  it('renders any thrown value at all as a valid error document', async () => {
    const { app, throwNext } = appThrowing();
    await fc.assert(
      fc.asyncProperty(fc.anything({ withObjectString: true, withNullPrototype: true }), async (thrown) => {
        throwNext(thrown);
        const res = await send(app, 'GET', '/books');
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.body.errors[0].status).toBe(String(res.status));
      }),
    );
  });
});

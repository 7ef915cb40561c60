import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { MemoryBookStore } from '../../examples/reference-app/books/book-store.js';
import { createReferenceApp } from '../../examples/reference-app/composition-root.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { referenceAppLogger } from '../../examples/reference-app/logger.js';
import { createApp } from '../../src/app/app.js';
import type { Logger } from '../../src/http/types.js';
import { requestView } from '../support/request.js';

/** A writable that keeps pino's JSON lines in memory. */
function memoryStream() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(
        ...String(chunk)
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  return { stream, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

class FailingBookStore extends MemoryBookStore {
  override async get(): Promise<never> {
    throw new Error('the book store is down');
  }
}

describe('a pino logger, passed as it is', () => {
  it('fits the Logger type', () => {
    expectTypeOf(pino()).toExtend<Logger>();
  });

  it('receives the error log of a 500, with the request id and the serialized cause', async () => {
    const { stream, records } = memoryStream();
    const app = createReferenceApp(configFromEnv({}), pino(stream), { bookStore: new FailingBookStore() });
    const response = await app.handle(
      requestView('GET', '/books/1', { headers: { 'x-request-id': 'pino-500' } }),
    );
    expect(response.status).toBe(500);
    // pino writes to a plain Writable synchronously: the line is there when the response is.
    const entry = records().find((record) => record.requestId === 'pino-500');
    expect(entry).toMatchObject({
      level: 50, // pino's "error"
      msg: 'request failed',
      method: 'GET',
      route: '/books/{id}',
      status: 500,
      err: { type: 'Error', message: 'the book store is down' },
    });
    expect((entry!.err as { stack: string }).stack).toContain('FailingBookStore');
  });

  it('receives a naming-rule warning at registration', () => {
    const { stream, records } = memoryStream();
    createApp({ logger: pino(stream), naming: { pluralCollections: 'warn' } }).route({
      method: 'GET',
      path: '/hello/{name}',
      handler: () => ({ status: 204, headers: {} }),
    });
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      expect(records()).toMatchObject([
        {
          level: 40,
          rule: 'pluralCollections',
          pattern: '/hello/{name}',
          msg: expect.stringMatching(/plural noun/),
        },
      ]);
    });
  });
});

describe("the reference app's logger", () => {
  it('writes JSON lines when not pretty', () => {
    const { stream, records } = memoryStream();
    const logger = referenceAppLogger({ pretty: false, destination: stream });
    logger.error({ requestId: 'r-1' }, 'boom');
    expect(records()).toMatchObject([{ level: 50, requestId: 'r-1', msg: 'boom' }]);
  });

  it('writes human-readable lines when pretty (a terminal)', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = referenceAppLogger({ pretty: true, destination: stream });
    const written = new Promise<void>((resolve) => stream.once('finish', resolve));
    logger.warn({ requestId: 'r-2' }, 'look here');
    logger.flush();
    stream.end();
    await written;
    const text = lines.join('');
    expect(text).toContain('look here');
    expect(text).toContain('r-2');
    expect(() => JSON.parse(text)).toThrow();
  });
});

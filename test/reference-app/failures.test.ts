import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBookStore } from '../../examples/reference-app/books/book-store.js';
import { ADAPTERS, type TestClient } from '../support/clients.js';
import { type memoryLogger, referenceApp } from '../support/reference-app.js';

const SECRET = 'postgres://admin:hunter2@db.internal:5432/prod';

/** A book store whose reads fail with an error carrying internal details. */
class FailingBookStore extends MemoryBookStore {
  override async get(): Promise<never> {
    const error = new Error(`connect ECONNREFUSED ${SECRET}`);
    error.stack = `Error: ${SECRET}\n    at FailingBookStore.get (internal.ts:1:1)`;
    throw error;
  }
}

describe.each(ADAPTERS)('server failures through the $adapter adapter', ({ connect }) => {
  let client: TestClient;
  let logger: ReturnType<typeof memoryLogger>;

  beforeAll(async () => {
    const built = referenceApp({}, { bookStore: new FailingBookStore() });
    logger = built.logger;
    client = await connect(built.app);
  });
  afterAll(() => client.close());

  it('answers 500 with a generic error document that never contains the internal message', async () => {
    const response = await client.request('GET', '/books/1', { headers: { 'x-request-id': 'req-42' } });
    expect(response.status).toBe(500);
    expect(response.body.errors).toEqual([
      {
        status: '500',
        code: 'internal-server-error',
        title: 'Internal Server Error',
        detail: 'Internal Server Error',
      },
    ]);
    expect(response.text).not.toContain('hunter2');
    expect(response.text).not.toContain('internal.ts');
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('keeps the secret out of the problem document too', async () => {
    const response = await client.request('GET', '/books/1', {
      headers: { accept: 'application/json, application/problem+json' },
    });
    expect(response.status).toBe(500);
    expect(response.body).toMatchObject({ status: 500, title: 'Internal Server Error' });
    expect(response.text).not.toContain('hunter2');
  });

  it('logs the real error with the request id', async () => {
    await client.request('GET', '/books/2', { headers: { 'x-request-id': 'trace-me-7' } });
    const entry = logger.entries.find((e) => e.fields.requestId === 'trace-me-7');
    expect(entry?.level).toBe('error');
    expect(String((entry!.fields.err as Error).message)).toContain(SECRET);
  });
});

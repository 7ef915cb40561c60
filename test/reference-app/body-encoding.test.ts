import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, type TestClient } from '../support/clients.js';
import { bearer, referenceApp } from '../support/reference-app.js';

const BASE = '/api/v1/standards/';

describe.each(ADAPTERS)('request body encoding through the $adapter adapter', ({ connect }) => {
  let client: TestClient;
  let writer: string;

  beforeAll(async () => {
    client = await connect(referenceApp().app);
    writer = await bearer('1', 'standards:read standards:write');
  });
  afterAll(() => client.close());

  let sequence = 0;
  const create = (body: string | Uint8Array, contentType = 'application/json') =>
    client.request('POST', BASE, {
      headers: {
        'content-type': contentType,
        authorization: writer,
        'idempotency-key': `"enc-${client.adapter}-${++sequence}"`,
      },
      body,
    });

  it('answers 400 for a name with invalid UTF-8 bytes and stores nothing (the same code is free after)', async () => {
    const code = `UTF8-${client.adapter.toUpperCase()}`;
    const invalid = Buffer.concat([
      Buffer.from(`{"code":"${code}","name":"ab`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('cd","description":null}'),
    ]);
    const refused = await create(invalid);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'invalid-utf8' });
    const created = await create(JSON.stringify({ code, name: 'abcd', description: null }));
    expect(created.status).toBe(201);
  });

  it('answers 415 for a latin1 body', async () => {
    const res = await create(
      '{"code":"LATIN","name":"caf\u00e9","description":null}',
      'application/json; charset=latin1',
    );
    expect(res.status).toBe(415);
    expect(res.body.errors[0].detail).toMatch(/UTF-8/);
  });
});

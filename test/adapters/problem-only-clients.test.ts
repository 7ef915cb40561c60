import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, type AdapterName, type Served, serve } from '../../examples/reference-app/serve.js';
import { bearer, referenceApp } from '../support/reference-app.js';

/**
 * A client that accepts only RFC 9457 problem details (RFC 9457 section 3) gets every error in that
 * format with its real status, on every adapter; 406 stays the answer to a success it cannot read
 * (RFC 9110 section 15.5.7).
 */
const PROBLEM_ONLY = { accept: 'application/problem+json' };

const servers = new Map<AdapterName, Served>();
beforeAll(async () => {
  for (const adapter of ADAPTERS) servers.set(adapter, await serve(adapter, referenceApp().app, 0));
});
afterAll(async () => {
  for (const served of servers.values()) await served.close();
});

describe.each(ADAPTERS)('a problem+json-only client on %s', (adapter) => {
  const send = async (method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
    const { port } = servers.get(adapter)!;
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { ...PROBLEM_ONLY, ...headers },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    return { status: response.status, type: response.headers.get('content-type'), text };
  };
  const problem = (answer: { type: string | null; text: string }) => {
    expect(answer.type).toBe('application/problem+json');
    return JSON.parse(answer.text) as { status: number };
  };

  it('gets the real 404, 400, 401 and 415 of a matched route as problem details', async () => {
    const token = await bearer('1');
    const answers = [
      [404, await send('GET', '/books/999999')],
      [400, await send('GET', '/books?unknown=1')],
      [401, await send('POST', '/orders', { 'content-type': 'application/json' }, '{}')],
      [415, await send('POST', '/orders', { authorization: token, 'content-type': 'text/plain' }, 'hi')],
      [404, await send('GET', '/orders/999999', { authorization: token })],
      [404, await send('GET', '/no-such-path')],
    ] as const;
    for (const [status, answer] of answers) {
      expect(answer.status, answer.text).toBe(status);
      expect(problem(answer).status).toBe(status);
    }
  });

  it('gets 406 for a success it cannot read, and nothing is written', async () => {
    const token = await bearer('2');
    const read = await send('GET', '/books/1');
    expect(read.status).toBe(406);
    expect(problem(read).status).toBe(406);
    const body = JSON.stringify({ bookId: 1, quantity: 1 });
    const write = await send(
      'POST',
      '/orders',
      { authorization: token, 'content-type': 'application/json' },
      body,
    );
    expect(write.status).toBe(406);
    expect(problem(write).status).toBe(406);
    const { port } = servers.get(adapter)!;
    const orders = await fetch(`http://127.0.0.1:${port}/users/2/orders`, {
      headers: { authorization: token },
    });
    expect(((await orders.json()) as { data: unknown[] }).data).toEqual([]);
  });
});

/**
 * One request and its answer as the cross-server comparisons see them (the adapter suite in
 * test/adapters/reference-app-everywhere, the runtimes in test/runtimes): status, the headers that do
 * not vary per response, and the body bytes.
 */

/**
 * Fields that differ between any two responses (the clock, the request id, a `Last-Modified` that is
 * its creation time) or per connection (each server's own framing fields).
 */
const PER_RESPONSE = new Set([
  'date',
  'x-request-id',
  'last-modified',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

export interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The comparable part of a response: per-response fields left out, the body as base64. */
export async function answerOf(response: Response): Promise<Answer> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    // The RateLimit reset (`t`, seconds) is read off the clock; the remaining quota (`r`) is compared.
    if (!PER_RESPONSE.has(name))
      headers[name] = name === 'ratelimit' ? value.replace(/;t=\d+/g, ';t=*') : value;
  });
  return {
    status: response.status,
    headers,
    body: Buffer.from(await response.arrayBuffer()).toString('base64'),
  };
}

/**
 * The reference app's core sequence, from a fresh app: books, a conditional GET, HEAD, error media
 * types, 405, OPTIONS, 406, a keyed order with its replay and its reuse with another body, ownership
 * (`alice` owns order 1, `bob` does not), no token, malformed JSON. The same sequence gives the same ids
 * on any adapter or runtime, each with its own stores.
 */
export function referenceAppExchanges(alice: string, bob: string): Exchange[] {
  const order = JSON.stringify({ data: { type: 'orders', attributes: { bookId: 1, quantity: 2 } } });
  const post = (key: string): Exchange => ({
    method: 'POST',
    path: '/orders',
    headers: { authorization: alice, 'content-type': 'application/vnd.api+json', 'idempotency-key': key },
    body: order,
  });
  return [
    { method: 'GET', path: '/books' },
    { method: 'GET', path: '/books/1' },
    { method: 'GET', path: '/books/1', headers: { 'if-none-match': '"1-1768469400000"' } },
    { method: 'HEAD', path: '/books/1' },
    { method: 'GET', path: '/books/1', headers: { accept: 'application/problem+json, application/json' } },
    // An error reaches a problem+json-only client with its real status; 406 is for a success.
    { method: 'GET', path: '/books/999', headers: { accept: 'application/problem+json' } },
    { method: 'DELETE', path: '/books/1' },
    { method: 'OPTIONS', path: '/books' },
    { method: 'GET', path: '/books', headers: { accept: 'text/html' } },
    post('key-1'),
    post('key-1'),
    { ...post('key-1'), body: order.replace('2', '3') },
    { method: 'GET', path: '/orders/1', headers: { authorization: alice } },
    { method: 'GET', path: '/orders/1', headers: { authorization: bob } },
    { method: 'GET', path: '/orders/1' },
    {
      method: 'POST',
      path: '/orders',
      headers: { authorization: alice, 'content-type': 'application/json' },
      body: '{',
    },
  ];
}

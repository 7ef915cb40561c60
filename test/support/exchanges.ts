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

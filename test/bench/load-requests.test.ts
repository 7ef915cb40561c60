import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASES, type Fixture, ORDER_BODY } from '../../bench/cases.js';
import { checkFreshKeys, freshKeysSent, loadCase } from '../../bench/load.js';

// The bench's load generator sends each case's requests as built once by loadRequests (no request
// built per send, which capped the writes' rates at the load generator's). What the servers must
// see is unchanged: every writer in turn, a fresh Idempotency-Key on every keyed write, the body
// whole with its length.

interface Seen {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly authorization: string | undefined;
  readonly key: string | undefined;
  readonly contentLength: string | undefined;
  readonly body: string;
}

const seen: Seen[] = [];
const server = createServer((request: IncomingMessage, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    seen.push({
      method: request.method,
      url: request.url,
      authorization: request.headers.authorization,
      key: request.headers['idempotency-key'] as string | undefined,
      contentLength: request.headers['content-length'],
      body: Buffer.concat(chunks).toString('utf8'),
    });
    response.writeHead(201, { 'content-length': '0' }).end();
  });
});
let port = 0;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const WRITERS = ['w1', 'w2', 'w3', 'w4', 'w5'];
const fixture: Fixture = { token: 'user-1', writers: WRITERS, orderId: '1', bookEtag: '"e"' };
const caseNamed = (name: string) => CASES.find((c) => c.name === name)!;

async function send(name: string, amount: number): Promise<Seen[]> {
  seen.length = 0;
  // As the bench sends a case (loadCase, which also checks each answer had a fresh key).
  const { result } = await loadCase(caseNamed(name), fixture, {
    url: `http://127.0.0.1:${port}`,
    connections: 4,
    amount,
  });
  expect(result.errors).toBe(0);
  return [...seen];
}

describe('the bench load generator: requests built once', () => {
  it('sends the keyed write with a fresh key each time, every writer in turn, the body whole', async () => {
    const keysBefore = freshKeysSent();
    const sent = await send('order-post-idempotent', 400);
    // The bench's own check: as many fresh keys as answers, and a run with more answers is refused.
    const keyed = caseNamed('order-post-idempotent');
    expect(() => checkFreshKeys(keyed, keysBefore, 400)).not.toThrow();
    expect(() => checkFreshKeys(keyed, keysBefore, freshKeysSent() - keysBefore + 1)).toThrow(/fresh/);
    expect(sent).toHaveLength(400);
    const keys = sent.map((s) => s.key);
    expect(keys.every((key) => key !== undefined && /^[\x21-\x7e]{1,255}$/.test(key))).toBe(true);
    expect(new Set(keys).size).toBe(400);
    expect(new Set(sent.map((s) => s.authorization))).toEqual(new Set(WRITERS.map((w) => `Bearer ${w}`)));
    for (const s of sent) {
      expect(s).toMatchObject({ method: 'POST', url: '/orders', body: ORDER_BODY });
      expect(s.contentLength).toBe(String(Buffer.byteLength(ORDER_BODY)));
    }
  });

  it('sends the unkeyed write as every writer in turn, without a key', async () => {
    const sent = await send('order-post', 100);
    expect(sent.every((s) => s.key === undefined)).toBe(true);
    const perWriter = new Map<string | undefined, number>();
    for (const s of sent) perWriter.set(s.authorization, (perWriter.get(s.authorization) ?? 0) + 1);
    expect([...perWriter.keys()].sort()).toEqual(WRITERS.map((w) => `Bearer ${w}`));
    // Each connection takes the writers in turn: none is sent more than its share and a round.
    expect(Math.max(...perWriter.values()) - Math.min(...perWriter.values())).toBeLessThanOrEqual(4);
  });

  it('sends a read as it is, the same request each time', async () => {
    const sent = await send('order', 20);
    expect(new Set(sent.map((s) => `${s.method} ${s.url} ${s.authorization}`))).toEqual(
      new Set(['GET /orders/1 Bearer user-1']),
    );
  });
});

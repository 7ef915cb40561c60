import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../src/adapters/node.js';
import { idempotency } from '../../src/idempotency/index.js';
import { gate } from '../support/gate.js';
import { expectOneExecution, send } from './http-client.js';
import { orderApp } from './order-app.js';

const ORDER = JSON.stringify({ bookId: 7, quantity: 1 });

describe('when requests reach the middleware over real sockets', () => {
  let hold = gate();
  let holding = false;
  const fixture = orderApp({
    idempotency: idempotency(),
    beforeCreate: () => (holding ? hold.promise : undefined),
  });
  const server = http.createServer(toNodeHandler(fixture.app));
  let port = 0;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  describe('with a bad key', () => {
    it.each<[string, string | string[]]>([
      ['empty', ''],
      ['too long', 'k'.repeat(256)],
      ['non-ASCII (UTF-8 bytes)', Buffer.from('clé-1', 'utf8').toString('latin1')],
      ['a tab', 'a\tb'],
      ['several header lines', ['"a"', '"b"']],
      ['several header lines with the same bare key', ['a', 'a']],
    ])('answers 400 for %s, nothing executed', async (_, value) => {
      const runs = fixture.runs.count;
      const response = await send(port, { 'idempotency-key': value }, ORDER);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body.toString()).errors[0].source).toEqual({ header: 'Idempotency-Key' });
      expect(fixture.runs.count).toBe(runs);
    });
  });

  it('creates one order for 50 concurrent identical requests; the others are replayed or 409', async () => {
    const before = fixture.orders.length;
    hold = gate();
    holding = true;
    const key = { 'idempotency-key': 'burst' };
    const pending = Array.from({ length: 50 }, () => send(port, key, ORDER));
    while (fixture.runs.count === 0 || fixture.orders.length === before) {
      if (fixture.runs.count > 0) hold.open();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    holding = false;
    const responses = await Promise.all(pending);
    expect(fixture.orders.length).toBe(before + 1);
    expectOneExecution(responses);
  });

  it('stores the response even when the client disconnected before it was sent', async () => {
    const before = fixture.orders.length;
    hold = gate();
    holding = true;
    const runs = fixture.runs.count;
    const abort = new AbortController();
    const gone = send(port, { 'idempotency-key': 'walked-away' }, ORDER, { signal: abort.signal }).catch(
      (e) => e,
    );
    while (fixture.runs.count === runs) await new Promise((resolve) => setTimeout(resolve, 5));
    abort.abort();
    expect(await gone).toBeInstanceOf(Error);
    holding = false;
    hold.open();
    while (fixture.orders.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    let retry = await send(port, { 'idempotency-key': 'walked-away' }, ORDER);
    // The first request may still be storing its response: a 409 means "not yet", never "run again".
    while (retry.status === 409) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      retry = await send(port, { 'idempotency-key': 'walked-away' }, ORDER);
    }
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(fixture.orders.length).toBe(before + 1);
  });
});

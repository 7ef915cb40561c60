import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { DEFAULT_BODY_LIMIT, readBody } from '../../src/core/body.js';
import { json } from '../../src/core/response.js';
import type { RequestView } from '../../src/http/types.js';
import { requestView } from '../support/request.js';
import { assertJsonApi } from '../support/schemas.js';
import { recordingLogger } from './send.js';

/** A request whose body arrives in `chunks` chunks of `size` bytes, counting how many were pulled. */
function streamed(chunks: number, size: number, headers: Record<string, string> = {}) {
  const pulled = { chunks: 0, bodyCalls: 0 };
  const base = requestView('POST', '/uploads', { headers });
  const view: RequestView = {
    ...base,
    body: async function* () {
      pulled.bodyCalls++;
      for (let i = 0; i < chunks; i++) {
        pulled.chunks++;
        yield new Uint8Array(size).fill(97);
      }
    },
  };
  return { view, pulled };
}

function uploadApp(limit?: number) {
  return createApp({ logger: recordingLogger() }).route({
    method: 'POST',
    path: '/uploads',
    handler: async (ctx) => json(200, { meta: { bytes: (await readBody(ctx, limit)).byteLength } }),
  });
}

describe('request body limits', () => {
  it('defaults to 100 KiB', () => {
    expect(DEFAULT_BODY_LIMIT).toBe(100 * 1024);
  });

  describe('when a body without Content-Length stays within the limit', () => {
    it('reads it whole, up to exactly the limit', async () => {
      const { view } = streamed(100, 1024);
      const res = await uploadApp().handle(view);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ meta: { bytes: DEFAULT_BODY_LIMIT } });
    });
  });

  describe('when a body without Content-Length crosses the limit', () => {
    it('answers 413 and stops reading at the first chunk past the limit', async () => {
      const { view, pulled } = streamed(1000, 1024);
      const res = await uploadApp().handle(view);
      expect(res.status).toBe(413);
      assertJsonApi(res.json);
      expect(res.json).toMatchObject({ errors: [{ status: '413', code: 'body-too-large' }] });
      expect(pulled.chunks).toBe(101);
    });

    it('honours a configured limit', async () => {
      const { view, pulled } = streamed(10, 10);
      const res = await uploadApp(25).handle(view);
      expect(res.status).toBe(413);
      expect(pulled.chunks).toBe(3);
      expect((res.json as { errors: { detail: string }[] }).errors[0]!.detail).toMatch(/limit of 25 bytes/);
    });
  });

  describe('when Content-Length declares more than the limit', () => {
    it('answers 413 without reading the body at all', async () => {
      const { view, pulled } = streamed(1, 10, { 'content-length': String(DEFAULT_BODY_LIMIT + 1) });
      const res = await uploadApp().handle(view);
      expect(res.status).toBe(413);
      expect(pulled.bodyCalls).toBe(0);
    });
  });

  describe('when Content-Length is not a number', () => {
    it.each(['abc', '-1', '1.5', '10, 10', ''])('answers 400 naming the header for %j', async (value) => {
      const { view, pulled } = streamed(1, 10, { 'content-length': value });
      const res = await uploadApp().handle(view);
      expect(res.status).toBe(400);
      assertJsonApi(res.json);
      expect(res.json).toMatchObject({ errors: [{ source: { header: 'Content-Length' } }] });
      expect(pulled.bodyCalls).toBe(0);
    });
  });

  describe('when a route does not ask for the body', () => {
    it('never reads it', async () => {
      const { view, pulled } = streamed(5, 10);
      const app = createApp().route({
        method: 'POST',
        path: '/uploads',
        handler: () => json(200, { meta: {} }),
      });
      expect((await app.handle(view)).status).toBe(200);
      expect(pulled.bodyCalls).toBe(0);
    });
  });
});

/** A request whose adapter hands its body over whole, as the fetch adapter does for a declared length. */
function whole(read: () => Promise<Uint8Array>, headers: Record<string, string> = {}) {
  const calls = { body: 0 };
  const view: RequestView = {
    ...requestView('POST', '/uploads', { headers }),
    body: () => {
      calls.body++;
      return read();
    },
  };
  return { view, calls };
}

describe('a body handed over whole', () => {
  it('is read as the bytes given, within the limit', async () => {
    const { view } = whole(async () => new Uint8Array(10).fill(98), { 'content-length': '10' });
    const res = await uploadApp(10).handle(view);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ meta: { bytes: 10 } });
  });

  it('is not asked for when its declared length is over the limit (413)', async () => {
    const { view, calls } = whole(async () => new Uint8Array(11), { 'content-length': '11' });
    const res = await uploadApp(10).handle(view);
    expect(res.status).toBe(413);
    expect(calls.body).toBe(0);
  });

  it('is refused with 413 when it declared no length and is over the limit', async () => {
    const { view } = whole(async () => new Uint8Array(11));
    const res = await uploadApp(10).handle(view);
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ errors: [{ status: '413', code: 'body-too-large' }] });
  });

  it('answers 400 request-aborted when the runtime could not read it', async () => {
    const { view } = whole(() => Promise.reject(new Error('connection reset')), { 'content-length': '10' });
    const res = await uploadApp(10).handle(view);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ errors: [{ status: '400', code: 'request-aborted' }] });
  });
});

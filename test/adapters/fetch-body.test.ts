import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import { createApp } from '../../src/app/app.js';
import { readBody } from '../../src/core/body.js';
import { json } from '../../src/core/response.js';

const LIMIT = 64;

/**
 * An app whose route reports how the body reached it: its whole bytes at once, or the chunks
 * `ctx.request.body()` yields, as the adapter hands them over; or, through `readBody` with a limit
 * of {@link LIMIT} bytes, the bytes read.
 */
function bodyApp() {
  return createApp({ logger: { error: () => {}, warn: () => {} } })
    .route({
      method: 'POST',
      path: '/chunks',
      handler: async (ctx) => {
        const body = ctx.request.body();
        if (body instanceof Promise) return json(200, { meta: { whole: [...(await body)] } });
        const chunks: number[][] = [];
        for await (const chunk of body) chunks.push([...chunk]);
        return json(200, { meta: { chunks } });
      },
    })
    .route({
      method: 'POST',
      path: '/uploads',
      bodyLimit: LIMIT,
      handler: async (ctx) => json(200, { meta: { bytes: [...(await readBody(ctx, LIMIT))] } }),
    });
}

/** A fetch request whose body stream yields `chunks` one by one, counting the chunks pulled. */
function streamedRequest(
  path: string,
  chunks: readonly Uint8Array[],
  options: { declareLength?: boolean; failAfter?: number } = {},
) {
  const pulled = { chunks: 0 };
  let next = 0;
  // No chunk is pulled ahead of a read (highWaterMark 0), so `pulled` counts what was read.
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (options.failAfter !== undefined && next === options.failAfter) {
          controller.error(new Error('connection reset'));
          return;
        }
        if (next === chunks.length) {
          controller.close();
          return;
        }
        pulled.chunks++;
        controller.enqueue(chunks[next++]!);
      },
    },
    { highWaterMark: 0 },
  );
  const length = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  const request = new Request(`http://localhost${path}`, {
    method: 'POST',
    body,
    duplex: 'half',
    headers: options.declareLength === false ? {} : { 'content-length': String(length) },
  } as RequestInit);
  return { request, pulled };
}

const bytes = (...values: number[]) => new Uint8Array(values);
const handler = toFetchHandler(bodyApp());
const metaOf = async (response: Response) => ((await response.json()) as { meta: unknown }).meta;

describe('the fetch adapter hands the request body over', () => {
  describe('when Content-Length declares the length', () => {
    it('gives the app the whole body at once, read by the runtime', async () => {
      const { request } = streamedRequest('/chunks', [bytes(1, 2), bytes(3), bytes(4, 5, 6)]);
      const response = await handler(request);
      expect(response.status).toBe(200);
      expect(await metaOf(response)).toEqual({ whole: [1, 2, 3, 4, 5, 6] });
    });

    it('gives no bytes for an empty body', async () => {
      const { request } = streamedRequest('/chunks', []);
      expect(await metaOf(await handler(request))).toEqual({ whole: [] });
    });

    it('answers 413 without reading a byte when the length is over the limit', async () => {
      const { request, pulled } = streamedRequest('/uploads', [new Uint8Array(LIMIT + 1)]);
      const response = await handler(request);
      expect(response.status).toBe(413);
      expect(pulled.chunks).toBe(0);
    });

    it('answers 400 request-aborted when the body breaks off before its end', async () => {
      const { request } = streamedRequest('/uploads', [bytes(1), bytes(2)], { failAfter: 1 });
      const response = await handler(request);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ errors: [{ code: 'request-aborted' }] });
    });
  });

  describe('when the body is chunked (no Content-Length)', () => {
    it('streams it chunk by chunk', async () => {
      const { request } = streamedRequest('/chunks', [bytes(1, 2), bytes(3)], { declareLength: false });
      expect(await metaOf(await handler(request))).toEqual({ chunks: [[1, 2], [3]] });
    });

    it('stops reading at the first chunk past the limit, with 413', async () => {
      const chunks = Array.from({ length: 100 }, () => new Uint8Array(16));
      const { request, pulled } = streamedRequest('/uploads', chunks, { declareLength: false });
      const response = await handler(request);
      expect(response.status).toBe(413);
      expect(pulled.chunks).toBe(LIMIT / 16 + 1);
    });
  });

  it('gives readBody exactly the bytes sent, or 413 over the limit, however they are cut and framed (property)', async () => {
    const chunk = fc.uint8Array({ maxLength: 24 });
    await fc.assert(
      fc.asyncProperty(fc.array(chunk, { maxLength: 8 }), fc.boolean(), async (chunks, declareLength) => {
        const { request } = streamedRequest('/uploads', chunks, { declareLength });
        const response = await handler(request);
        const sent = chunks.flatMap((c) => [...c]);
        if (sent.length > LIMIT) expect(response.status).toBe(413);
        else {
          expect(response.status).toBe(200);
          expect(await metaOf(response)).toEqual({ bytes: sent });
        }
      }),
    );
  });
});

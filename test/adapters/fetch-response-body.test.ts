import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toFetchResponse } from '../../src/adapters/fetch.js';
import type { ApiResponse } from '../../src/http/types.js';

/** What a client reads of a fetch response: its status, bytes, and the two framing fields. */
async function received(response: Response) {
  const bytes = new Uint8Array(await response.arrayBuffer());
  return {
    status: response.status,
    bytes,
    contentLength: response.headers.get('content-length'),
    contentType: response.headers.get('content-type'),
  };
}

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('the fetch adapter sends the body', () => {
  it('as the UTF-8 of the JSON text, with its length in bytes, whatever the characters (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (document) => {
        const text = JSON.stringify(document);
        const answer = await received(
          toFetchResponse({ status: 200, headers: { 'content-type': 'application/json' }, json: document }),
        );
        // The model: the bytes `TextEncoder` gives for `JSON.stringify`'s text (RFC 8259 section 8.1).
        expect(answer.bytes).toEqual(utf8(text));
        expect(answer.contentLength).toBe(String(utf8(text).byteLength));
        expect(answer.contentType).toBe('application/json');
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('as the UTF-8 of a string body, with its length in bytes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary' }), fc.boolean(), async (text, typed) => {
        const headers: Record<string, string> = typed ? { 'content-type': 'text/csv' } : {};
        const answer = await received(toFetchResponse({ status: 200, headers, raw: text }));
        expect(answer.bytes).toEqual(utf8(text));
        expect(answer.contentLength).toBe(String(utf8(text).byteLength));
        // A body without a Content-Type gets none from the runtime (the Fetch standard would add
        // `text/plain` to a string body): the same answer as the node adapter's.
        expect(answer.contentType).toBe(typed ? 'text/csv' : null);
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it('as given when it is bytes, and none for a status without content', async () => {
    const bytes = utf8('{"a":"é"}');
    const given: ApiResponse = { status: 200, headers: { 'content-type': 'application/json' }, raw: bytes };
    expect(await received(toFetchResponse(given))).toMatchObject({ bytes, contentLength: '10' });
    const empty = await received(toFetchResponse({ status: 200, headers: {} }));
    expect(empty).toMatchObject({ contentLength: '0', contentType: null });
    expect(empty.bytes.byteLength).toBe(0);
    const notModified = toFetchResponse({ status: 304, headers: { etag: '"1"' }, json: { a: 1 } });
    expect(notModified.body).toBeNull();
    expect(notModified.headers.get('content-length')).toBeNull();
  });
});

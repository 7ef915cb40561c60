import etag from 'etag';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyEtag, strongMatch, validateEtag, weakMatch } from '../../src/caching/index.js';

const bytes = fc.uint8Array({ maxLength: 64 });

describe('when an ETag is computed from the bytes of a body', () => {
  it('is strong by default and weak when asked', () => {
    const body = Buffer.from('{"data":[]}');
    expect(validateEtag(bodyEtag(body)).weak).toBe(false);
    expect(validateEtag(bodyEtag(body, { weak: true })).weak).toBe(true);
    expect(bodyEtag(new Uint8Array())).toBe('"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"');
  });

  it('is the tag jshttp etag (Express, send) gives the same bytes, strong and weak', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (body, weak) => {
        expect(bodyEtag(body, { weak })).toBe(etag(Buffer.from(body), { weak }));
      }),
    );
  });

  it('is equal exactly when the bytes are equal', () => {
    fc.assert(
      fc.property(bytes, bytes, (a, b) => {
        expect(bodyEtag(a) === bodyEtag(b)).toBe(Buffer.from(a).equals(Buffer.from(b)));
      }),
    );
  });

  it('gives different content codings of the same bytes different strong tags', () => {
    fc.assert(
      fc.property(bytes, (body) => {
        const identity = validateEtag(bodyEtag(body));
        const gzip = validateEtag(bodyEtag(body, { contentEncoding: 'gzip' }));
        const br = validateEtag(bodyEtag(body, { contentEncoding: 'br' }));
        expect(strongMatch(identity, gzip)).toBe(false);
        expect(strongMatch(gzip, br)).toBe(false);
        expect(weakMatch(gzip, validateEtag(bodyEtag(body, { contentEncoding: 'GZIP' })))).toBe(true);
      }),
    );
  });

  it('treats identity as no coding and refuses a malformed coding', () => {
    const body = Buffer.from('x');
    expect(bodyEtag(body, { contentEncoding: 'identity' })).toBe(bodyEtag(body));
    expect(bodyEtag(body, { contentEncoding: 'gzip, br' })).toMatch(/-gzip\+br"$/);
    expect(() => bodyEtag(body, { contentEncoding: 'g"zip' })).toThrow(TypeError);
  });
});

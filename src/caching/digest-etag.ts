/** Anything a representation is built from that identifies its state: ids, versions, a query. */
export type DigestPart = string | number | bigint | boolean | null | undefined;

/**
 * An ETag digested from the values a representation is built from (RFC 9110 section 8.8.3), without
 * building or hashing the body: for a collection, each member's id and version plus the query.
 * Every change that can change the bytes must change some part (a new, removed or edited member,
 * another order, another query); that is the caller's promise, as with {@link versionEtag}.
 *
 * Parts are typed and length-prefixed, so `['ab', 'c']`, `['a', 'bc']` and `[1]` vs `['1']` differ;
 * numbers are hashed by value, never formatted. The digest has 64 bits (two 32-bit lanes, each
 * finished with the MurmurHash3 mixer). It is not a cryptographic hash: feed it server state, not
 * bytes a client chose in order to collide.
 *
 * @example digestEtag([ctx.request.search, ...books.flatMap((b) => [b.id, b.version])]) // '"9f1c..."'
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-8.8.3
 */
export function digestEtag(parts: readonly DigestPart[], options: { readonly weak?: boolean } = {}): string {
  if (!Array.isArray(parts)) throw new TypeError('digestEtag: parts must be an array');
  const digest = new Digest();
  for (const part of parts) digest.part(part);
  // Sixteen hex digits are always a valid opaque tag: no check needed.
  const opaque = digest.hex(parts.length);
  return options.weak === true ? `W/"${opaque}"` : `"${opaque}"`;
}

const TAG = {
  string: 0x73,
  number: 0x6e,
  bigint: 0x62,
  true: 0x74,
  false: 0x66,
  null: 0x7a,
  undefined: 0x75,
};

// Numbers are hashed through their IEEE 754 bits: exact, and no number-to-text conversion.
const FLOAT = new Float64Array(1);
const WORDS = new Uint32Array(FLOAT.buffer);

class Digest {
  private a = 0x811c9dc5;
  private b = 0x9747b28c;

  part(part: DigestPart): void {
    switch (typeof part) {
      case 'string':
        this.text(TAG.string, part);
        return;
      case 'number':
        if (!Number.isFinite(part))
          throw new TypeError(`digestEtag: a number part must be finite, got ${part}`);
        FLOAT[0] = part === 0 ? 0 : part; // -0 and 0 are the same version
        this.word(TAG.number);
        this.word(WORDS[0]!);
        this.word(WORDS[1]!);
        return;
      case 'bigint':
        this.text(TAG.bigint, part.toString(16));
        return;
      case 'boolean':
        this.word(part ? TAG.true : TAG.false);
        return;
      default:
        if (part === null) this.word(TAG.null);
        else if (part === undefined) this.word(TAG.undefined);
        else
          throw new TypeError(`digestEtag: parts are strings, numbers, booleans or null, got ${typeof part}`);
    }
  }

  hex(count: number): string {
    const a = mix32(this.a ^ count);
    const b = mix32(this.b ^ count);
    return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
  }

  private text(tag: number, text: string): void {
    this.word(tag);
    this.word(text.length);
    for (let i = 0; i < text.length; i++) this.word(text.charCodeAt(i));
  }

  private word(value: number): void {
    this.a = Math.imul(this.a ^ value, 0x01000193); // FNV-1a step
    const b = Math.imul(this.b ^ value, 0x5bd1e995); // MurmurHash2 step
    this.b = b ^ (b >>> 15);
  }
}

/** The MurmurHash3 32-bit finalizer: every input bit affects every output bit. */
function mix32(value: number): number {
  let h = value;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

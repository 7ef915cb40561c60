/** The header view of a WHATWG `Headers`, the one every fetch-based driver (fetch, Hono) reads. */
import type { HeaderBag } from '../http/types.js';

class FetchHeaders implements HeaderBag {
  constructor(private readonly headers: Headers) {}
  get(name: string): string | undefined {
    return this.headers.get(name) ?? undefined;
  }
}

/**
 * The fields of a fetch request: a repeated field comes joined by `", "` (RFC 9110 section 5.3), as
 * the node drivers read it, so a second `Authorization` is seen (and refused) on every runtime.
 */
export function fetchHeaders(headers: Headers): HeaderBag {
  return new FetchHeaders(headers);
}

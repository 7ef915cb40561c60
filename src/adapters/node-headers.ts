/**
 * The header view of a node:http request, the one every node-based driver (node, Express, Fastify,
 * Koa) reads, so that a request means the same on each of them. Types only from node:http.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { HeaderBag } from '../http/types.js';

/**
 * Request fields node keeps only the first line of when a request repeats them. The core reads a
 * repeated field joined by `", "` (RFC 9110 section 5.3), as the fetch adapter's `Headers` does, so
 * that it can refuse a second `Authorization` instead of silently using the first.
 */
const FIRST_LINE_ONLY = new Set([
  'authorization',
  'proxy-authorization',
  'content-type',
  'if-modified-since',
  'if-unmodified-since',
  'from',
  'referer',
  'user-agent',
  'host',
  'max-forwards',
]);

class NodeHeaders implements HeaderBag {
  constructor(
    private readonly headers: IncomingHttpHeaders,
    private readonly raw: readonly string[],
  ) {}
  get(name: string): string | undefined {
    const value = this.headers[name];
    if (typeof value === 'string') return FIRST_LINE_ONLY.has(name) ? this.allLines(name, value) : value;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  /** Every line of a field node kept once, joined; `first` itself when it came once (the usual case). */
  private allLines(name: string, first: string): string {
    const { raw } = this;
    let joined: string | undefined;
    let seen = 0;
    for (let i = 0; i < raw.length; i += 2) {
      const field = raw[i]!;
      if (field.length !== name.length || field.toLowerCase() !== name) continue;
      seen++;
      if (seen === 2) joined = `${first}, ${raw[i + 1]}`;
      else if (seen > 2) joined = `${joined}, ${raw[i + 1]}`;
    }
    return joined ?? first;
  }
}

/** The fields of a node:http request, every line of a repeated field included. */
export function nodeHeaders(req: IncomingMessage): HeaderBag {
  return new NodeHeaders(req.headers, req.rawHeaders);
}

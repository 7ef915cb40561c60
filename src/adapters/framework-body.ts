/**
 * The request body when the framework's own parser got there first (`express.json()`, a Koa body
 * parser, Fastify's parser), and that parser's refusals as the core's error documents. So
 * `decodeJsonBody` and a declared body codec answer the same in a framework app as in a
 * rest-conventions app, whoever parsed the body (see `docs/adapters.md`).
 */
import type { IncomingMessage } from 'node:http';
import { bodyTooLargeError } from '../core/body.js';
import { jsonTextOf, malformedJsonError } from '../validation/json-text.js';

/**
 * The body for the primitives: the request's stream, or, once a framework parser has read the stream,
 * what it left: bytes as they are, a string as UTF-8, a parsed JSON value serialized again (the same
 * value; white space and escapes may differ from what was sent).
 */
export function frameworkBody(
  stream: IncomingMessage,
  parsed: () => unknown,
): () => AsyncIterable<Uint8Array> {
  return () => {
    if (!stream.readableDidRead) return stream;
    const value = parsed();
    return value === undefined ? stream : once(bytesOf(value));
  };
}

function bytesOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** What body-parser and co-body (under `@koa/bodyparser`, `koa-body`) put on their errors. */
interface ParserError {
  readonly type?: unknown;
  readonly status?: unknown;
  readonly body?: unknown;
  readonly limit?: unknown;
}

/**
 * A body parser's refusal as the core's answer: a body that is not JSON text is 400 `malformed-json`
 * with the message the core gives for the same text (RFC 8259), a body over the parser's limit 413
 * `body-too-large`. `undefined` for anything else.
 */
export function fromBodyParser(thrown: unknown): Error | undefined {
  if (!(thrown instanceof Error)) return undefined;
  const { type, status, body, limit } = thrown as ParserError;
  if (type === 'entity.too.large' && typeof limit === 'number') return bodyTooLargeError(limit);
  const parseFailed = type === 'entity.parse.failed' || (thrown instanceof SyntaxError && status === 400);
  if (!parseFailed || typeof body !== 'string') return undefined;
  const text = jsonTextOf(body);
  return malformedJsonError(text.ok ? { ok: false, reason: 'syntax', message: '' } : text, thrown);
}

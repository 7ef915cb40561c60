import { copyWith } from '../http/header-copy.js';
import type { ApiResponse } from '../http/types.js';

/**
 * A response carrying a JSON document. Its `Content-Type` is chosen by content negotiation unless
 * the headers set one.
 * @example json(200, { data: [] })
 */
export function json(status: number, document: unknown, headers: Record<string, string> = {}): ApiResponse {
  return { status, headers, json: document };
}

/** `201 Created` with `Location` (RFC 9110 section 15.3.2). */
export function created(
  location: string,
  document: unknown,
  headers: Record<string, string> = {},
): ApiResponse {
  return { status: 201, headers: copyWith(headers, 'location', location), json: document };
}

/** `204 No Content`. */
export function noContent(headers: Record<string, string> = {}): ApiResponse {
  return { status: 204, headers };
}

const encoder = new TextEncoder();

/**
 * The body as bytes, serializing a JSON document once and remembering the result in `raw`.
 * Streams are not buffered here: callers that need bytes of a stream use {@link collectBody}.
 */
export function bodyBytes(response: ApiResponse): Uint8Array | undefined {
  const { raw } = response;
  if (raw instanceof Uint8Array) return raw;
  if (typeof raw === 'string') {
    const bytes = encoder.encode(raw);
    response.raw = bytes;
    return bytes;
  }
  if (raw !== undefined) return undefined;
  if (response.json === undefined) return undefined;
  const bytes = Buffer.from(JSON.stringify(response.json));
  response.raw = bytes;
  return bytes;
}

/** The whole body as bytes, draining a stream body if there is one (and keeping the bytes). */
export async function collectBody(response: ApiResponse): Promise<Uint8Array | undefined> {
  const { raw } = response;
  if (raw === undefined || raw instanceof Uint8Array || typeof raw === 'string') return bodyBytes(response);
  const chunks: Uint8Array[] = [];
  // A framework's stream (a node Readable a route sent) may yield strings: UTF-8, as node writes them.
  for await (const chunk of raw as AsyncIterable<Uint8Array | string>)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  const bytes = Buffer.concat(chunks);
  response.raw = bytes;
  return bytes;
}

/**
 * Append one member to a list-valued header as it is, after what is there. Unlike
 * {@link appendListHeader} nothing is split or deduplicated: for members that may contain commas or
 * legitimately repeat (`Link`, `RateLimit`, `RateLimit-Policy`).
 */
export function appendListMember(headers: Record<string, string>, name: string, member: string): void {
  const current = headers[name];
  headers[name] = current === undefined || current === '' ? member : `${current}, ${member}`;
}

/**
 * Add one field line to a response, for a field that cannot be combined into one comma-separated
 * value (`Set-Cookie`, RFC 9110 section 5.3 and RFC 6265 section 3): each call sends its own line.
 * A value already set under the same name in `headers` is kept as the first line.
 *
 * @example appendFieldLine(response, 'set-cookie', 'a=1; Path=/'); appendFieldLine(response, 'set-cookie', 'b=2');
 */
export function appendFieldLine(response: ApiResponse, name: string, value: string): void {
  const lower = name.toLowerCase();
  if (response.fieldLines === undefined) response.fieldLines = {};
  const lines = response.fieldLines;
  let values = lines[lower];
  if (values === undefined) {
    const single = response.headers[lower];
    values = single === undefined ? [] : [single];
    lines[lower] = values;
  }
  values.push(value);
  delete response.headers[lower];
}

/**
 * The response's fields as a node `writeHead` object: `headers` as they are (no copy) unless
 * `fieldLines` add arrays of values.
 */
export function fieldsOf(response: ApiResponse): Record<string, string | string[]> {
  const { fieldLines, headers } = response;
  if (fieldLines === undefined) return headers;
  return { ...headers, ...fieldLines };
}

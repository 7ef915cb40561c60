import { fold } from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import type * as t from 'io-ts';
import { readBody } from '../core/body.js';
import { essence, JSON_API, JSON_MEDIA } from '../core/media-types.js';
import type { Context } from '../core/types.js';
import { ApiError, type ErrorDetail } from '../errors/api-error.js';
import { escapePointerToken, toFieldErrors } from './field-errors.js';

export interface DecodeBodyOptions<A> {
  /** The codec of the attributes (use `strictObject` so unknown fields are refused). */
  readonly codec: t.Type<A, unknown, unknown>;
  /**
   * The JSON:API resource type expected in `data.type` when the body is a resource document
   * (`application/vnd.api+json`). A mismatch is 409 Conflict (JSON:API 1.0 "Creating Resources").
   */
  readonly type: string;
  /**
   * For updates: the id of the target resource. A JSON:API document must then carry the same
   * `data.id` (missing: 400; different: 409, JSON:API 1.0 "Updating Resources"). Without it the
   * body creates a resource and a client-generated `data.id` is refused with 403.
   */
  readonly id?: string;
  /** Body size limit in bytes (default 100 KiB); larger bodies get 413 without being read. */
  readonly limit?: number;
}

const DOCUMENT_MEMBERS = new Set(['data', 'meta', 'jsonapi']);
// `relationships` are not accepted: attributes codecs would silently drop them.
const DATA_MEMBERS = new Set(['type', 'id', 'attributes', 'meta']);
// JSON:API 1.0 "Content Negotiation": a JSON:API request with media-type parameters is a 415; the
// `version` parameter is this library's version negotiation, and `charset` restates UTF-8.
const ALLOWED_JSON_API_PARAMS = new Set(['version', 'charset']);

function badRequest(errors: ErrorDetail[]): ApiError {
  return new ApiError(400, { errors });
}

function parseJson(bytes: Uint8Array): unknown {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text.trim() === '') {
    throw badRequest([
      {
        code: 'malformed-json',
        title: 'Malformed JSON',
        detail: 'The body is empty; a JSON object is expected.',
        source: { pointer: '' },
      },
    ]);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message.slice(0, 120) : 'unreadable';
    throw badRequest([
      {
        code: 'malformed-json',
        title: 'Malformed JSON',
        detail: `The body is not valid JSON: ${reason}`,
        source: { pointer: '' },
      },
    ]);
  }
}

function missing(pointer: string, detail: string): ErrorDetail {
  return { code: 'missing-field', title: 'Missing field', detail, source: { pointer } };
}

/** Media-type parameter names of a Content-Type value, lower-cased. */
function parameterNames(contentType: string): string[] {
  return contentType
    .split(';')
    .slice(1)
    .map((param) => param.split('=')[0]!.trim().toLowerCase())
    .filter((name) => name !== '');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The attributes of a JSON:API resource document, checking its envelope. */
function unwrapDocument(document: unknown, type: string, id: string | undefined): unknown {
  if (!isObject(document)) {
    throw badRequest([
      {
        code: 'invalid-document',
        title: 'Invalid document',
        detail: 'A JSON:API document must be an object.',
        source: { pointer: '' },
      },
    ]);
  }
  const problems: ErrorDetail[] = [];
  for (const member of Object.keys(document)) {
    if (!DOCUMENT_MEMBERS.has(member)) {
      problems.push({
        code: 'unknown-field',
        title: 'Unknown field',
        detail: `"${member}" is not allowed in a request document.`,
        source: { pointer: `/${escapePointerToken(member)}` },
      });
    }
  }
  const { data } = document;
  if (!isObject(data)) {
    problems.push(missing('/data', '"data" must be a resource object.'));
    throw badRequest(problems);
  }
  for (const member of Object.keys(data)) {
    if (!DATA_MEMBERS.has(member)) {
      problems.push({
        code: 'unknown-field',
        title: 'Unknown field',
        detail: `"${member}" is not a resource object member.`,
        source: { pointer: `/data/${escapePointerToken(member)}` },
      });
    }
  }
  if (data.type === undefined) problems.push(missing('/data/type', '"data.type" is required.'));
  if (id !== undefined && data.id === undefined)
    problems.push(missing('/data/id', '"data.id" is required in an update.'));
  if (problems.length > 0) throw badRequest(problems);
  if (data.type !== type) {
    throw new ApiError(409, {
      code: 'type-mismatch',
      detail: `"data.type" must be "${type}".`,
      source: { pointer: '/data/type' },
    });
  }
  if (id === undefined && data.id !== undefined) {
    throw new ApiError(403, {
      code: 'client-id-unsupported',
      detail: 'Client-generated ids are not supported; leave out "data.id".',
      source: { pointer: '/data/id' },
    });
  }
  if (id !== undefined && data.id !== id) {
    throw new ApiError(409, {
      code: 'id-mismatch',
      detail: '"data.id" must be the id of the resource in the path.',
      source: { pointer: '/data/id' },
    });
  }
  return data.attributes ?? {};
}

/**
 * Read, parse and validate a JSON request body (RFC 8259), as bare attributes (`application/json`)
 * or as a JSON:API resource document (`application/vnd.api+json`); both decode to the same value.
 *
 * - another or no `Content-Type`: 415, naming the header;
 * - over the size limit: 413, without reading the rest;
 * - malformed JSON: 400;
 * - codec failures: 400 with one error per bad field and its `source.pointer`.
 *
 * @example const input = await decodeJsonBody(ctx, { codec: OrderInput, type: 'orders' });
 */
export async function decodeJsonBody<A>(ctx: Context, options: DecodeBodyOptions<A>): Promise<A> {
  const contentType = ctx.request.headers.get('content-type');
  const mediaType = contentType === undefined ? undefined : essence(contentType);
  if (mediaType !== JSON_MEDIA && mediaType !== JSON_API) {
    throw new ApiError(415, {
      code: 'unsupported-media-type',
      detail: `Request bodies must be ${JSON_MEDIA} or ${JSON_API}${contentType === undefined ? '; no Content-Type was sent' : ''}.`,
      source: { header: 'Content-Type' },
      headers: { 'accept-post': `${JSON_MEDIA}, ${JSON_API}`, 'accept-patch': `${JSON_MEDIA}, ${JSON_API}` },
    });
  }
  const isDocument = mediaType === JSON_API;
  const unsupported = isDocument
    ? parameterNames(contentType!).find((n) => !ALLOWED_JSON_API_PARAMS.has(n))
    : undefined;
  if (unsupported !== undefined) {
    throw new ApiError(415, {
      code: 'unsupported-media-type',
      detail: `${JSON_API} does not take the media type parameter "${unsupported}".`,
      source: { header: 'Content-Type' },
    });
  }
  const parsed = parseJson(await readBody(ctx, options.limit));
  const attributes = isDocument ? unwrapDocument(parsed, options.type, options.id) : parsed;
  return pipe(
    options.codec.decode(attributes),
    fold(
      (errors) => {
        throw badRequest(toFieldErrors(errors, isDocument ? '/data/attributes' : ''));
      },
      (value) => value,
    ),
  );
}

/**
 * The JSON pointer of a body field as the client sent it: `/data/attributes/<field>` inside a
 * JSON:API document, `/<field>` in bare attributes. For errors found after decoding (e.g. a
 * referenced record that does not exist).
 */
export function bodyPointer(ctx: Context, field: string): string {
  const contentType = ctx.request.headers.get('content-type');
  const inDocument = contentType !== undefined && essence(contentType) === JSON_API;
  return `${inDocument ? '/data/attributes' : ''}/${escapePointerToken(field)}`;
}

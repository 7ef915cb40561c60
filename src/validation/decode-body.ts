import type * as t from 'io-ts';
import { bodyTooLargeError, DEFAULT_BODY_LIMIT, readBody } from '../core/body.js';
import { isPromise, whenSettled } from '../core/maybe-promise.js';
import { mediaTypeParameters } from '../core/media-type-parameters.js';
import type { ApiError } from '../errors/api-error.js';
import { type CodedErrorDetail, codedErrors } from '../errors/coded-error.js';
import { echo, echoedWhole } from '../errors/echo.js';
import { essence, JSON_API, JSON_MEDIA } from '../http/media-types.js';
import type { Context } from '../http/types.js';
import {
  clientIdUnsupportedError,
  documentAsJsonError,
  idMismatchError,
  typeMismatchError,
  unsupportedBodyError,
} from './body-errors.js';
import { checkMaxErrors, ErrorList, type MAX_ERRORS, type MAX_ERRORS_LIMIT } from './error-cap.js';
import { addFieldErrors, escapePointerToken } from './field-errors.js';
import { type JsonText, malformedJsonError, parseJsonText, takeJsonBody } from './json-text.js';
import { refusedJsonApiContent } from './jsonapi-content-type.js';
import { decoderOf, type StandardSchemaV1, validateSchema } from './standard-schema.js';

export interface DecodeBodyOptions<A> {
  /**
   * The codec of the attributes (use `strictObject` so unknown fields are refused), or any Standard
   * Schema validator (a strict zod, valibot or arktype object), whose issues get the same errors.
   */
  readonly codec: t.Decoder<unknown, A> | StandardSchemaV1<unknown, A>;
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
  /**
   * How many problems one 400 lists (default {@link MAX_ERRORS}, at most {@link MAX_ERRORS_LIMIT});
   * the rest are counted in `meta.omittedErrors`.
   */
  readonly maxErrors?: number;
}

const DOCUMENT_MEMBERS = new Set(['data', 'meta', 'jsonapi']);
// `relationships` are not accepted: attributes codecs would silently drop them.
const DATA_MEMBERS = new Set(['type', 'id', 'attributes', 'meta']);

function badRequestError(errors: CodedErrorDetail[]): ApiError {
  return codedErrors(400, errors);
}

function missing(pointer: string, detail: string): CodedErrorDetail {
  return { code: 'missing-field', title: 'Missing field', detail, source: { pointer } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether a body the codec refused is a JSON:API resource document: an object of `data` (an object
 * with a string `type`) and optionally `meta` and `jsonapi`. Checked only after the codec failed, so
 * attributes that happen to have a `data` field are still decoded as such.
 */
function isResourceDocument(body: unknown): boolean {
  return (
    isObject(body) &&
    Object.keys(body).every((member) => DOCUMENT_MEMBERS.has(member)) &&
    isObject(body.data) &&
    typeof body.data.type === 'string'
  );
}

/** The attributes of a JSON:API resource document, checking its envelope. */
function unwrapDocument(document: unknown, type: string, id: string | undefined, maxErrors: number): unknown {
  if (!isObject(document)) {
    throw badRequestError([
      {
        code: 'invalid-document',
        title: 'Invalid document',
        detail: 'A JSON:API document must be an object.',
        source: { pointer: '' },
      },
    ]);
  }
  const problems = new ErrorList(maxErrors);
  for (const member of Object.keys(document)) {
    if (!DOCUMENT_MEMBERS.has(member)) {
      problems.add(() => ({
        code: 'unknown-field',
        title: 'Unknown field',
        detail: `"${echo(member)}" is not allowed in a request document.`,
        source: { pointer: echoedWhole(member) ? `/${escapePointerToken(member)}` : '' },
      }));
    }
  }
  const { data } = document;
  if (!isObject(data)) {
    problems.add(missing('/data', '"data" must be a resource object.'));
    throw problems.toBadRequest();
  }
  for (const member of Object.keys(data)) {
    if (!DATA_MEMBERS.has(member)) {
      problems.add(() => ({
        code: 'unknown-field',
        title: 'Unknown field',
        detail: `"${echo(member)}" is not a resource object member.`,
        source: { pointer: echoedWhole(member) ? `/data/${escapePointerToken(member)}` : '/data' },
      }));
    }
  }
  if (data.type === undefined) problems.add(missing('/data/type', '"data.type" is required.'));
  if (id !== undefined && data.id === undefined)
    problems.add(missing('/data/id', '"data.id" is required in an update.'));
  if (!problems.empty) throw problems.toBadRequest();
  if (data.type !== type) {
    throw typeMismatchError(type);
  }
  if (id === undefined && data.id !== undefined) {
    throw clientIdUnsupportedError();
  }
  if (id !== undefined && data.id !== id) {
    throw idMismatchError();
  }
  return data.attributes ?? {};
}

/** Which JSON body a `Content-Type` announces; 415 for anything else (checked before any byte is read). */
function jsonBodyKind(contentType: string | undefined): 'document' | 'attributes' {
  const mediaType = contentType === undefined ? undefined : essence(contentType);
  if (mediaType !== JSON_MEDIA && mediaType !== JSON_API) {
    throw unsupportedBodyError(
      `Request bodies must be ${JSON_MEDIA} or ${JSON_API}${contentType === undefined ? '; no Content-Type was sent' : ''}.`,
      true,
    );
  }
  const params = mediaTypeParameters(contentType!);
  if (params === undefined) {
    throw unsupportedBodyError('The Content-Type parameters are malformed (RFC 9110 section 5.6.6).');
  }
  const charset = params.get('charset');
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') {
    throw unsupportedBodyError(
      `Request bodies must be encoded in UTF-8 (RFC 8259 section 8.1), not charset "${echo(charset)}".`,
      true,
    );
  }
  const isDocument = mediaType === JSON_API;
  const refused = isDocument ? refusedJsonApiContent(contentType!) : undefined;
  if (refused !== undefined) throw refused;
  return isDocument ? 'document' : 'attributes';
}

function decodeBytes<A>(
  kind: 'document' | 'attributes',
  text: JsonText,
  options: DecodeBodyOptions<A>,
  maxErrors: number,
): A | Promise<A> {
  if (!text.ok) throw malformedJsonError(text);
  const isDocument = kind === 'document';
  const parsed = text.value;
  const attributes = isDocument ? unwrapDocument(parsed, options.type, options.id, maxErrors) : parsed;
  const { codec } = options;
  const decoded = validateSchema(decoderOf(codec), attributes);
  const settle = (result: t.Validation<A>): A => {
    if (result._tag === 'Right') return result.right;
    if (!isDocument && isResourceDocument(parsed)) throw documentAsJsonError();
    const problems = new ErrorList(maxErrors);
    addFieldErrors(result.left, isDocument ? '/data/attributes' : '', problems);
    throw problems.toBadRequest();
  };
  return whenSettled(decoded, settle);
}

/**
 * The plain-value core of {@link decodeJsonBody}, for a body already in hand (a framework that read
 * it, a queue message, a test): the request's `Content-Type` and the body's bytes in, the decoded
 * value out, or an `ApiError` thrown with the same status, codes and pointers `decodeJsonBody` gives.
 * `limit` is checked on the bytes given (413). A validator that validates asynchronously needs
 * {@link decodeJsonBody}: here it is a `TypeError`.
 *
 * @example
 * const input = decodeJsonBytes('application/vnd.api+json', bytes, { codec: OrderInput, type: 'orders' });
 */
export function decodeJsonBytes<A>(
  contentType: string | undefined,
  body: Uint8Array,
  options: DecodeBodyOptions<A>,
): A {
  const maxErrors = checkMaxErrors(options.maxErrors, 'decodeJsonBytes');
  const kind = jsonBodyKind(contentType);
  const limit = options.limit ?? DEFAULT_BODY_LIMIT;
  if (body.byteLength > limit) throw bodyTooLargeError(limit);
  const decoded = decodeBytes(kind, parseJsonText(body), options, maxErrors);
  if (isPromise(decoded)) {
    decoded.catch(() => undefined);
    throw new TypeError('decodeJsonBytes: the validator answers asynchronously; use decodeJsonBody');
  }
  return decoded;
}

/**
 * Read, parse and validate a JSON request body (RFC 8259), as bare attributes (`application/json`)
 * or as a JSON:API resource document (`application/vnd.api+json`); both decode to the same value.
 *
 * - another or no `Content-Type`: 415, naming the header;
 * - over the size limit: 413, without reading the rest;
 * - a `charset` other than UTF-8: 415; bytes that are not UTF-8: 400 (RFC 8259 section 8.1);
 * - malformed JSON: 400;
 * - a JSON:API resource document sent as `application/json` that the codec refuses: one 415 saying
 *   to send it as `application/vnd.api+json`;
 * - codec failures: 400 with one error per bad field and its `source.pointer`, at most `maxErrors`
 *   (default 20), the rest counted in `meta.omittedErrors`.
 *
 * The media type is checked before a byte is read; the rest is {@link decodeJsonBytes}.
 *
 * @example const input = await decodeJsonBody(ctx, { codec: OrderInput, type: 'orders' });
 */
export async function decodeJsonBody<A>(ctx: Context, options: DecodeBodyOptions<A>): Promise<A> {
  const maxErrors = checkMaxErrors(options.maxErrors, 'decodeJsonBody');
  const kind = jsonBodyKind(ctx.request.headers.get('content-type'));
  const body = await readBody(ctx, options.limit);
  // An earlier layer that read the body as JSON (the idempotency fingerprint) left its parse.
  return decodeBytes(kind, takeJsonBody(ctx, body), options, maxErrors);
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

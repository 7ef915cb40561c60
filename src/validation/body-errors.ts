/**
 * The errors of a request body's media type and JSON:API envelope (RFC 9110 section 15.5.16,
 * JSON:API 1.1 "Creating Resources" and "Updating Resources"), each built here once.
 */
import type { ApiError } from '../errors/api-error.js';
import { codedError } from '../errors/coded-error.js';
import { JSON_API, JSON_MEDIA } from '../http/media-types.js';

/** The request media types, named in a 415 (RFC 9110 section 15.5.16, W3C LDP 1.0 7.1, RFC 5789 3.1). */
const ACCEPTED_BODIES = {
  'accept-post': `${JSON_MEDIA}, ${JSON_API}`,
  'accept-patch': `${JSON_MEDIA}, ${JSON_API}`,
} as const;

/**
 * 415 for a body this route does not take as it is announced; `offerAccepted` names the media types
 * it takes (`Accept-Post`, `Accept-Patch`), where another media type would be taken.
 */
export function unsupportedBodyError(detail: string, offerAccepted = false): ApiError {
  return codedError(415, 'unsupported-media-type', {
    detail,
    source: { header: 'Content-Type' },
    ...(offerAccepted ? { headers: ACCEPTED_BODIES } : {}),
  });
}

/**
 * A JSON:API document sent as `application/json`: the content is not in the format its Content-Type
 * names, found by inspecting it (RFC 9110 section 15.5.16), so one 415 says how to send it instead of
 * one 400 per envelope member.
 */
export function documentAsJsonError(): ApiError {
  return unsupportedBodyError(
    `The body is a JSON:API document but was sent as ${JSON_MEDIA}; send JSON:API documents with Content-Type: ${JSON_API}, or the bare attributes as ${JSON_MEDIA}.`,
    true,
  );
}

/** 409: `data.type` is not the route's resource type (JSON:API 1.1 "Creating Resources"). */
export function typeMismatchError(type: string): ApiError {
  return codedError(409, 'type-mismatch', {
    detail: `"data.type" must be "${type}".`,
    source: { pointer: '/data/type' },
  });
}

/** 403: a client-generated id where the server assigns ids (JSON:API 1.1 "Client-Generated IDs"). */
export function clientIdUnsupportedError(): ApiError {
  return codedError(403, 'client-id-unsupported', {
    detail: 'Client-generated ids are not supported; leave out "data.id".',
    source: { pointer: '/data/id' },
  });
}

/** 409: `data.id` is not the id the path names (JSON:API 1.1 "Updating Resources"). */
export function idMismatchError(): ApiError {
  return codedError(409, 'id-mismatch', {
    detail: '"data.id" must be the id of the resource in the path.',
    source: { pointer: '/data/id' },
  });
}

import type { ApiError, ErrorDetail } from './api-error.js';
import { statusPhrase } from './api-error.js';

/** A JSON:API error object (https://jsonapi.org/format/1.0/#error-objects). */
export interface ErrorObject {
  readonly status: string;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly source?: ErrorDetail['source'];
  /** JSON:API 1.1 "Error Objects": `type` links to the problem type this error is an instance of. */
  readonly links?: { readonly type: string };
  /** The problem type's extension members (such as `violated-policies`). */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** A JSON:API document carrying `errors` (and never `data` or `included`). */
export interface ErrorDocument {
  readonly errors: readonly ErrorObject[];
  readonly meta?: Readonly<Record<string, unknown>>;
  readonly data?: never;
  readonly included?: never;
}

/** An RFC 9457 problem details document. */
export interface ProblemDocument {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance?: string;
  readonly code: string;
  /** Extension member: every problem, in JSON:API error-object form, when there are several. */
  readonly errors?: readonly ErrorObject[];
  /** Extension member: the error's `meta` (e.g. `omittedErrors` when the list was capped). */
  readonly meta?: Readonly<Record<string, unknown>>;
  /** The extension members of the error's problem type (e.g. `violated-policies`). */
  readonly [extension: string]: unknown;
}

/**
 * The error objects of an {@link ApiError}, with `status` as a string as JSON:API requires; an error
 * of a registered problem type links to it (`links.type`, JSON:API 1.1 "Error Objects") and carries
 * the type's extension members as `meta`, the same facts a problem document gives.
 */
export function errorObjects(error: ApiError): ErrorObject[] {
  const status = String(error.status);
  const fallbackTitle = statusPhrase(error.status);
  const { problemType, extensions } = error;
  return error.errors.map((e) => ({
    status,
    code: e.code,
    title: e.title ?? fallbackTitle,
    detail: e.detail,
    ...(e.source ? { source: e.source } : {}),
    ...(problemType === undefined ? {} : { links: { type: problemType.uri } }),
    ...(extensions === undefined ? {} : { meta: extensions }),
  }));
}

/**
 * The JSON:API error document for an error.
 * @example errorDocument(new ApiError(404)) // { errors: [{ status: '404', code: 'not-found', ... }] }
 */
export function errorDocument(error: ApiError): ErrorDocument {
  return error.meta === undefined
    ? { errors: errorObjects(error) }
    : { errors: errorObjects(error), meta: error.meta };
}

/**
 * The RFC 9457 problem document for an error. With `type: "about:blank"` the title is the status
 * phrase (RFC 9457 section 4.2.1); an error of a registered problem type gives its URI and title, and
 * the type's extension members at the top level (section 3.2); several problems are listed in the
 * `errors` extension member.
 * @see https://www.rfc-editor.org/rfc/rfc9457#section-3
 */
export function problemDocument(error: ApiError, instance?: string): ProblemDocument {
  const objects = errorObjects(error);
  const first = objects[0]!;
  const { problemType } = error;
  return {
    type: problemType?.uri ?? 'about:blank',
    title: problemType?.title ?? statusPhrase(error.status),
    status: error.status,
    detail: objects.length === 1 ? first.detail : `${objects.length} problems; see errors.`,
    code: objects.length === 1 ? first.code : 'multiple-errors',
    ...(instance ? { instance } : {}),
    ...(objects.length > 1 ? { errors: objects } : {}),
    ...(error.meta === undefined ? {} : { meta: error.meta }),
    // Their names were checked against the members above when the error was made.
    ...error.extensions,
  };
}

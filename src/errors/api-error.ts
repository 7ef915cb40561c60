import { reasonPhrase } from '../http/status-phrases.js';

/** Where in the request an error was found (JSON:API error `source`). */
export type ErrorSource =
  | { readonly pointer: string }
  | { readonly parameter: string }
  | { readonly header: string };

/** One problem in a request; an {@link ApiError} carries one or more. */
export interface ErrorDetail {
  /** A stable, machine-readable code such as `invalid-field` or `not-found`. */
  readonly code: string;
  /** Human-readable explanation of this occurrence. */
  readonly detail: string;
  readonly source?: ErrorSource;
  /** A short summary; defaults to the status phrase. */
  readonly title?: string;
}

/**
 * A registered problem type (RFC 9457 section 4): its URI, sent as a problem document's `type` and
 * as a JSON:API error object's `links.type`, and its registered title.
 */
export interface ProblemType {
  /** An absolute URI, such as `https://iana.org/assignments/http-problem-types#quota-exceeded`. */
  readonly uri: string;
  /** The registered title, sent as the problem document's `title` (RFC 9457 section 3.1.3). */
  readonly title: string;
}

export interface ApiErrorOptions {
  /** Machine-readable code; defaults to a slug of the status phrase (`not-found`). */
  readonly code?: string;
  readonly title?: string;
  readonly detail?: string;
  readonly source?: ErrorSource;
  /** Several problems at once (e.g. one per invalid field). Replaces code/detail/source. */
  readonly errors?: readonly ErrorDetail[];
  /** Extra response headers (`Allow`, `WWW-Authenticate`, `Retry-After`, ...). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The underlying failure; logged, never sent. */
  readonly cause?: unknown;
  /**
   * Facts about the error as a whole, sent as the document's `meta` (JSON:API 1.0 "Top Level"; a
   * `meta` extension member in a problem document, RFC 9457 section 3.2), e.g. `{ omittedErrors: 12 }`.
   */
  readonly meta?: Readonly<Record<string, unknown>>;
  /**
   * The problem type this error is an instance of (RFC 9457 section 3.1.1); without one a problem
   * document says `about:blank` and the status phrase.
   */
  readonly problemType?: ProblemType;
  /**
   * The problem type's extension members (RFC 9457 section 3.2), such as `violated-policies`: top-level
   * members of a problem document, and the `meta` of each JSON:API error object. Their names may not
   * be ones a problem document already has (`type`, `title`, `status`, `detail`, `instance`, `code`,
   * `errors`, `meta`).
   */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** Members a problem document has of its own: an extension member may not take their names. */
const PROBLEM_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'instance', 'code', 'errors', 'meta']);

function checkedProblemType(type: ProblemType | undefined): ProblemType | undefined {
  if (type === undefined) return undefined;
  if (typeof type.title !== 'string' || type.title === '' || !URL.canParse(type.uri)) {
    throw new TypeError('ApiError problemType must have an absolute uri and a title');
  }
  return type;
}

function checkedExtensions(
  extensions: Readonly<Record<string, unknown>> | undefined,
): Readonly<Record<string, unknown>> | undefined {
  if (extensions === undefined) return undefined;
  for (const name of Object.keys(extensions)) {
    if (PROBLEM_MEMBERS.has(name)) {
      throw new TypeError(`ApiError extensions may not name the problem member ${JSON.stringify(name)}`);
    }
  }
  return extensions;
}

const BRAND = Symbol.for('rest-conventions.ApiError');

/**
 * The one error type every primitive throws. It becomes an error document (JSON:API `errors`) or an
 * RFC 9457 problem document, chosen by the client's `Accept`.
 *
 * What it states (`code`, `title`, `detail`, `source`, `headers`) is sent as written, 5xx included, so
 * write it for the client; its `cause` is only logged. Anything thrown that is not an ApiError (see
 * `toApiError`) becomes a 500 with the generic status phrase, so internal messages never leak.
 *
 * @example
 * throw new ApiError(404, { detail: 'No book with id 7.' });
 * @see https://www.rfc-editor.org/rfc/rfc9457
 */
export class ApiError extends Error {
  readonly status: number;
  readonly errors: readonly ErrorDetail[];
  readonly headers: Readonly<Record<string, string>>;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly problemType: ProblemType | undefined;
  readonly extensions: Readonly<Record<string, unknown>> | undefined;
  readonly [BRAND] = true;

  constructor(status: number, options: ApiErrorOptions = {}) {
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new TypeError(`ApiError status must be an integer 400..599, got ${String(status)}`);
    }
    const title = options.title ?? statusPhrase(status);
    const errors = options.errors?.length
      ? options.errors
      : [
          {
            code: options.code ?? statusCode(status),
            title,
            detail: options.detail ?? title,
            ...(options.source ? { source: options.source } : {}),
          },
        ];
    super(errors[0]!.detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.status = status;
    this.errors = errors;
    this.headers = options.headers ?? {};
    this.meta = options.meta;
    this.problemType = checkedProblemType(options.problemType);
    this.extensions = checkedExtensions(options.extensions);
  }
}

/** True for an {@link ApiError}, also across duplicated copies of this module (ESM and CJS builds). */
export function isApiError(value: unknown): value is ApiError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** The reason phrase of an HTTP status (`404` → `Not Found`; RFC 9110 section 15). */
export function statusPhrase(status: number): string {
  return reasonPhrase(status);
}

/** The default machine code of a status: its phrase as a slug (`Unsupported Media Type` → `unsupported-media-type`). */
export function statusCode(status: number): string {
  // Remembered like the phrase: every 404 and 405 the router answers asks for it.
  let code = codes.get(status);
  if (code === undefined) {
    code = statusPhrase(status)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    codes.set(status, code);
  }
  return code;
}

const codes = new Map<number, string>();

/**
 * A model of what a browser does with CORS, written from the Fetch standard (not from the library):
 * whether a request needs a preflight (section 4.1 "main fetch" and 3.2.2/3.2.3), whether the
 * preflight's answer lets the request go (4.8 "CORS-preflight fetch"), whether the answer passes the
 * CORS check (4.9), and which response headers the script can then read (3.2.3 "CORS-safelisted
 * response-header name" and `Access-Control-Expose-Headers`).
 *
 * https://fetch.spec.whatwg.org/#http-cors-protocol
 */

export interface BrowserRequest {
  /** The page's origin, as the browser serializes it in `Origin`. */
  readonly origin: string;
  readonly method: string;
  /** The headers the script set, by lower-case name. */
  readonly headers: Readonly<Record<string, string>>;
  /** `credentials: 'include'`. */
  readonly credentials: boolean;
}

const SAFELISTED_METHODS = new Set(['GET', 'HEAD', 'POST']);
const SAFELISTED_CONTENT_TYPES = new Set([
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
]);
const SAFELISTED_RESPONSE_HEADERS = [
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'expires',
  'last-modified',
  'pragma',
];

// biome-ignore lint/suspicious/noControlCharactersInRegex: the standard's CORS-unsafe request-header bytes
const UNSAFE_BYTE = /[\x00-\x08\x0a-\x1f"():<>?@[\\\]{}\x7f]/;

/** Fetch 3.2.3 "CORS-safelisted request-header". */
function safelisted(name: string, value: string): boolean {
  if (value.length > 128) return false;
  switch (name) {
    case 'accept':
      return !UNSAFE_BYTE.test(value);
    case 'accept-language':
    case 'content-language':
      return /^[0-9A-Za-z *,\-.;=]*$/.test(value);
    case 'content-type': {
      if (UNSAFE_BYTE.test(value)) return false;
      const essence = value.split(';')[0]!.trim().toLowerCase();
      return SAFELISTED_CONTENT_TYPES.has(essence);
    }
    default:
      return false;
  }
}

/** Fetch 3.2.3 "CORS-unsafe request-header names": sorted, lower-case. */
export function unsafeHeaderNames(headers: Readonly<Record<string, string>>): string[] {
  return Object.entries(headers)
    .filter(([name, value]) => !safelisted(name, value))
    .map(([name]) => name)
    .sort();
}

/** Whether the browser sends a preflight first. */
export function needsPreflight(request: BrowserRequest): boolean {
  return !SAFELISTED_METHODS.has(request.method) || unsafeHeaderNames(request.headers).length > 0;
}

/** The `Access-Control-Request-*` fields of the preflight the browser sends for `request`. */
export function preflightHeaders(request: BrowserRequest): Record<string, string> {
  const unsafe = unsafeHeaderNames(request.headers);
  return {
    origin: request.origin,
    'access-control-request-method': request.method,
    ...(unsafe.length > 0 ? { 'access-control-request-headers': unsafe.join(',') } : {}),
  };
}

/** Fetch 4.9 "CORS check". */
export function corsCheck(request: BrowserRequest, response: Readonly<Record<string, string>>): boolean {
  const origin = response['access-control-allow-origin'];
  if (origin === undefined) return false;
  if (!request.credentials && origin === '*') return true;
  if (origin !== request.origin) return false;
  if (!request.credentials) return true;
  return response['access-control-allow-credentials'] === 'true';
}

/** A list-valued field as the standard extracts it: comma-separated, whitespace trimmed. */
function list(value: string | undefined): string[] {
  return value === undefined
    ? []
    : value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
}

/** Fetch 4.8: whether the preflight's answer (status, headers) lets `request` be sent. */
export function preflightPasses(
  request: BrowserRequest,
  status: number,
  response: Readonly<Record<string, string>>,
): boolean {
  if (status < 200 || status > 299 || !corsCheck(request, response)) return false;
  const methods = list(response['access-control-allow-methods']);
  const names = list(response['access-control-allow-headers']).map((n) => n.toLowerCase());
  if (
    !methods.includes(request.method) &&
    !SAFELISTED_METHODS.has(request.method) &&
    (request.credentials || !methods.includes('*'))
  )
    return false;
  for (const name of unsafeHeaderNames(request.headers)) {
    if (names.includes(name)) continue;
    if (request.credentials || !names.includes('*') || name === 'authorization') return false;
  }
  return true;
}

/** The response header names a script may read after the CORS check passed (lower-case). */
export function readableHeaders(
  request: BrowserRequest,
  response: Readonly<Record<string, string>>,
): Set<string> {
  const exposed = list(response['access-control-expose-headers']).map((n) => n.toLowerCase());
  if (exposed.includes('*') && !request.credentials) return new Set(Object.keys(response));
  return new Set([...SAFELISTED_RESPONSE_HEADERS, ...exposed].filter((name) => name in response));
}

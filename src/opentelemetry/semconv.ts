/**
 * The OpenTelemetry semantic-convention names this subpath writes, as constants: the stable HTTP
 * server conventions (https://opentelemetry.io/docs/specs/semconv/http/http-spans/) and the database
 * client conventions (https://opentelemetry.io/docs/specs/semconv/database/). Written out rather than
 * taken from `@opentelemetry/semantic-conventions`, so the subpath needs `@opentelemetry/api` only.
 */

/** The instrumentation scope every tracer and meter of the library is named with. */
export const SCOPE = 'rest-conventions';

export const HTTP_REQUEST_METHOD = 'http.request.method';
export const HTTP_REQUEST_METHOD_ORIGINAL = 'http.request.method_original';
export const HTTP_ROUTE = 'http.route';
export const HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
export const ERROR_TYPE = 'error.type';
export const URL_PATH = 'url.path';
export const USER_AGENT_ORIGINAL = 'user_agent.original';
export const NETWORK_PEER_ADDRESS = 'network.peer.address';
export const DB_SYSTEM_NAME = 'db.system.name';
export const DB_OPERATION_NAME = 'db.operation.name';

/**
 * Methods reported as they are; any other is `_OTHER`, with the method in
 * `http.request.method_original` (HTTP spans, "Common attributes"). QUERY (RFC 10008) is on the list
 * because the library routes it, which the conventions allow an instrumentation to declare.
 */
export const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'QUERY',
  'TRACE',
]);

/** `http.server.request.duration`'s bucket boundaries, in seconds, as the HTTP metrics conventions advise. */
export const HTTP_DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

/** `db.client.operation.duration`'s bucket boundaries, in seconds, as the database metrics conventions advise. */
export const DB_DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

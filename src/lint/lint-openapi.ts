import { IRREGULAR_PLURALS, OPERATION_WORDS } from '../core/route-pattern.js';
import { resolveRef } from '../openapi/refs.js';
import {
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiParameter,
  type OpenApiPathItem,
  type OpenApiResponse,
  pathItemOperations,
} from '../openapi/types.js';
import { checkLinkTargets } from './link-targets.js';
import { jsonApiParameterProblems, rateLimitFieldProblems } from './media-type-rules.js';
import { describeId, resourceIdSchema, sameIdSchema } from './path-ids.js';
import { LINT_RULE_IDS, LINT_RULES, type LintRuleId, lintRuleDocs } from './rules.js';

/** One broken convention at one place. */
export interface LintFinding {
  readonly rule: LintRuleId;
  /** The path template, as the document writes it. */
  readonly path: string;
  /** The upper-case method, for rules about an operation. */
  readonly method?: string;
  readonly message: string;
  /** Where the rule is explained. */
  readonly docs: string;
}

export interface LintOptions {
  /** Rules to switch off, by id (`'off'`); the others run. */
  readonly rules?: Partial<Record<LintRuleId, 'off' | 'error'>>;
}

/** Query parameter names that carry an operation instead of the method. */
const ACTION_PARAMETERS: ReadonlySet<string> = new Set([
  'action',
  'op',
  'operation',
  'command',
  'cmd',
  'method',
]);
const SEGMENT = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const PARAM = /^\{[^{}]+\}$/;
const DOCUMENT_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*\.(?:json|yaml|yml)$/;
const VERSION = /^v[1-9]\d*$/;
const VERSION_LIKE = /^(?:v|ver|version)[-_.]?\d+(?:[._]\d+)*$/i;

/**
 * Check an OpenAPI 3.x document against the conventions in `docs/lint.md`: resource naming (RFC 3986
 * paths of plural nouns, hyphenated, no verbs), versioning, and what each kind of operation must
 * document (201 + Location, errors, caching, 401/403, 429, Idempotency-Key, preconditions,
 * deprecation). Returns the findings in document order; an empty list means the document passes.
 *
 * @example
 * const findings = lintOpenApi(openApiDocument(app.routes(), { title: 'Books', version: '1' }));
 */
export function lintOpenApi(document: OpenApiDocument, options: LintOptions = {}): LintFinding[] {
  const switches = options.rules ?? {};
  for (const id of Object.keys(switches)) {
    if (!(id in LINT_RULES))
      throw new TypeError(`lintOpenApi: unknown rule "${id}"; rules: ${LINT_RULE_IDS.join(', ')}`);
  }
  const findings: LintFinding[] = [];
  const report = (rule: LintRuleId, path: string, method: string | undefined, message: string) => {
    if (switches[rule] === 'off') return;
    findings.push({
      rule,
      path,
      ...(method === undefined ? {} : { method }),
      message,
      docs: lintRuleDocs(rule),
    });
  };
  for (const [path, rawItem] of Object.entries(document.paths ?? {})) {
    const item = resolveRef(document, rawItem) as OpenApiPathItem;
    checkPath(path, report);
    for (const [method, operation] of pathItemOperations(item)) {
      checkOperation(document, path, item, method, operation, report);
    }
  }
  checkLinkTargets(document, report);
  return findings;
}

type Report = (rule: LintRuleId, path: string, method: string | undefined, message: string) => void;

function checkPath(path: string, report: Report): void {
  const segments = path.split('/').filter((segment) => segment !== '');
  segments.forEach((segment, index) => {
    if (PARAM.test(segment)) return;
    if (VERSION_LIKE.test(segment)) {
      const placed = index === 0 || (index === 1 && segments[0] === 'api');
      if (!VERSION.test(segment) || !placed) {
        report(
          'version-prefix',
          path,
          undefined,
          `Version segment "${segment}" must be /v<n>/ or /api/v<n>/ at the start of the path.`,
        );
      }
      return;
    }
    // The last segment may name a document with its extension (`/openapi.json`).
    const last = index === segments.length - 1;
    if (!SEGMENT.test(segment) && !(last && DOCUMENT_NAME.test(segment))) {
      report(
        'lowercase-hyphenated',
        path,
        undefined,
        `Segment "${segment}" must be lower-case words separated by hyphens.`,
      );
    }
    const words = wordsOf(segment);
    const firstWord = words[0] ?? '';
    if (OPERATION_WORDS.has(firstWord)) {
      report(
        'no-verbs',
        path,
        undefined,
        `Segment "${segment}" names an operation ("${firstWord}"); let the method be the operation.`,
      );
    }
    const next = segments[index + 1];
    if (next !== undefined && PARAM.test(next) && !(segment === 'api' && index === 0)) {
      const lastWord = words.at(-1) ?? '';
      if (!lastWord.endsWith('s') && !IRREGULAR_PLURALS.has(lastWord)) {
        report(
          'plural-collections',
          path,
          undefined,
          `Collection segment "${segment}" must be a plural noun.`,
        );
      }
    }
  });
}

function checkOperation(
  document: OpenApiDocument,
  path: string,
  item: OpenApiPathItem,
  method: string,
  operation: OpenApiOperation,
  report: Report,
): void {
  const upper = method.toUpperCase();
  const say = (rule: LintRuleId, message: string) => report(rule, path, upper, message);
  const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(
    (parameter) => resolveRef(document, parameter) as OpenApiParameter,
  );
  const responses = new Map<string, OpenApiResponse>();
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    responses.set(status.toUpperCase(), resolveRef(document, response) as OpenApiResponse);
  }
  const hasParameter = (where: OpenApiParameter['in'], name: string) =>
    parameters.some((p) => p.in === where && p.name.toLowerCase() === name.toLowerCase());
  const headerOf = (status: string, name: string) => hasHeader(responses.get(status), name);
  const successes = [...responses.keys()].filter((status) => /^2(\d\d|XX)$/.test(status));

  for (const parameter of parameters) {
    if (parameter.in === 'query' && ACTION_PARAMETERS.has(parameter.name.toLowerCase())) {
      say(
        'no-action-query',
        `Query parameter "${parameter.name}" names an operation; use the method instead.`,
      );
    }
  }
  const last = path.split('/').filter(Boolean).at(-1) ?? '';
  if (PARAM.test(last)) {
    // The last parameter names the resource a success answers with: it takes that resource's ids.
    const name = last.slice(1, -1);
    const parameter = parameters.find((p) => p.in === 'path' && p.name === name);
    const id = successes.map((status) => resourceIdSchema(document, responses.get(status))).find(Boolean);
    if (parameter !== undefined && id !== undefined && !sameIdSchema(parameter.schema ?? {}, id))
      say(
        'path-id-type',
        `Path parameter {${name}} names the resource's id: it is ${describeId(parameter.schema ?? {})}, the id ${describeId(id)}.`,
      );
  }
  if (method === 'post' && !PARAM.test(last)) {
    if (!headerOf('201', 'location'))
      say('create-201-location', 'POST to a collection must document 201 with a Location header.');
  }
  // A 4xx counts with its error document: a response with no content documents no error.
  const errorDocuments = [...responses].filter(
    ([status, response]) => /^4(\d\d|XX)$/.test(status) && Object.keys(response.content ?? {}).length > 0,
  );
  if (errorDocuments.length === 0) {
    say('error-responses', 'The operation documents no error response (4xx).');
  }
  if (method === 'get' && !successes.some((status) => headerOf(status, 'cache-control'))) {
    say('get-caching-headers', 'GET must document Cache-Control on its success response.');
  }
  const security = operation.security ?? document.security ?? [];
  const authenticated =
    security.length > 0 && !security.some((requirement) => Object.keys(requirement).length === 0);
  if (authenticated) {
    if (!responses.has('401')) say('auth-401-403', 'An authenticated operation must document 401.');
    const scoped = security.some((requirement) =>
      Object.values(requirement).some((scopes) => scopes.length > 0),
    );
    if (scoped && !responses.has('403'))
      say('auth-401-403', 'An operation that needs scopes must document 403.');
  }
  const limited = [...responses.values()].some(
    (response) => hasHeader(response, 'ratelimit') || hasHeader(response, 'ratelimit-policy'),
  );
  if (limited && !headerOf('429', 'retry-after')) {
    say('ratelimit-429', 'A rate-limited operation must document 429 with Retry-After.');
  }
  for (const problem of rateLimitFieldProblems(responses)) say('ratelimit-fields', problem);
  const body = operation.requestBody === undefined ? undefined : resolveRef(document, operation.requestBody);
  for (const problem of jsonApiParameterProblems(operation, body, responses))
    say('jsonapi-parameters', problem);
  if (method === 'query') {
    const content = Object.keys(body?.content ?? {});
    const missing = [
      ...(content.length === 0 ? ['a request body with its media types'] : []),
      ...(successes.some((status) => headerOf(status, 'accept-query')) ? [] : ['Accept-Query']),
      ...(successes.some((status) => headerOf(status, 'cache-control')) ? [] : ['Cache-Control']),
      ...(responses.has('415') ? [] : ['415']),
    ];
    if (missing.length > 0)
      say('query-method', `QUERY must document ${missing.join(', ')} (RFC 10008 sections 2, 2.7 and 3).`);
  }
  if (method === 'post' && !hasParameter('header', 'idempotency-key')) {
    say('post-idempotency-key', 'POST must document the Idempotency-Key request header.');
  }
  if (method === 'patch' || method === 'put' || method === 'delete') {
    const get = item.get;
    const validated =
      get !== undefined &&
      Object.entries(get.responses ?? {}).some(
        ([status, response]) => status.startsWith('2') && hasHeader(resolveRef(document, response), 'etag'),
      );
    // PATCH and PUT replace state: they require If-Match (428 without it). A DELETE overwrites no
    // one's change, so it may go unconditional, but still honours If-Match (412).
    const required =
      method === 'delete' ? responses.has('412') : responses.has('412') && responses.has('428');
    if (validated && !(hasParameter('header', 'if-match') && required)) {
      say(
        'write-preconditions',
        method === 'delete'
          ? 'DELETE on a resource with an ETag must document If-Match and 412.'
          : `${upper} on a resource with an ETag must document If-Match, 412 and 428.`,
      );
    }
  }
  if (operation.deprecated === true) {
    const announced = successes.some(
      (status) => headerOf(status, 'deprecation') && headerOf(status, 'sunset'),
    );
    if (!announced)
      say('deprecation-headers', 'A deprecated operation must document the Deprecation and Sunset headers.');
  }
}

/** The words of a segment, whichever way they are joined (`account-types`, `accountTypes`, `get_books`). */
function wordsOf(segment: string): string[] {
  return segment
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .split(/[-_.]+/)
    .filter((word) => word !== '');
}

function hasHeader(response: OpenApiResponse | undefined, name: string): boolean {
  if (response?.headers === undefined) return false;
  return Object.keys(response.headers).some((header) => header.toLowerCase() === name);
}

/**
 * The conventions linter's rules: an id, what it checks, and where `docs/lint.md` explains it. Each
 * can be switched off by id (`lintOpenApi(document, { rules: { 'post-idempotency-key': 'off' } })`).
 */
export const LINT_RULES = {
  'plural-collections': 'A segment followed by a parameter names a collection: a plural noun (/books/{id}).',
  'lowercase-hyphenated': 'Path segments are lower-case words separated by hyphens (/account-type).',
  'no-verbs': 'Paths name resources, not operations: no verb segments (/orders/{id}/delete).',
  'no-action-query':
    'No query parameter that names an operation (?action=create): the method is the operation.',
  'version-prefix':
    'A version in the path is /v<n>/ or /api/v<n>/ at the start, never elsewhere or another spelling.',
  'create-201-location': 'A POST to a collection documents 201 with a Location header.',
  'error-responses': 'Every operation documents its error responses (at least one 4xx).',
  'get-caching-headers': 'A GET documents Cache-Control on its success response.',
  'auth-401-403': 'An authenticated operation documents 401 (and 403 when it needs scopes).',
  'ratelimit-429': 'A rate-limited operation (RateLimit headers) documents 429 with Retry-After.',
  'post-idempotency-key': 'A POST documents the Idempotency-Key request header.',
  'write-preconditions':
    'PATCH and PUT on a resource whose GET has an ETag document If-Match, 412 and 428; DELETE, If-Match and 412.',
  'path-id-type':
    "A path parameter naming a resource (/books/{id}) has the schema of that resource's id: a string with its pattern.",
  'deprecation-headers': 'A deprecated operation documents the Deprecation and Sunset headers.',
  'ratelimit-fields':
    'RateLimit fields as draft-ietf-httpapi-ratelimit-headers-11 names them: RateLimit with RateLimit-Policy, no older or X- fields.',
  'jsonapi-parameters':
    'JSON:API media types carry only ext and profile, lists of absolute URIs; x-jsonapi-profiles only where the operation answers JSON:API.',
  'query-method':
    'A QUERY operation documents its request body, Accept-Query and Cache-Control on its success, and 415 (RFC 10008).',
  'link-targets':
    'Every response link leads to an operation of the document: its operationId names one, its operationRef resolves to one.',
} as const;

export type LintRuleId = keyof typeof LINT_RULES;

export const LINT_RULE_IDS = Object.keys(LINT_RULES) as readonly LintRuleId[];

/** Where each rule is explained. */
export function lintRuleDocs(rule: LintRuleId): string {
  return `docs/lint.md#${rule}`;
}

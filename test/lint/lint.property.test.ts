import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { LINT_RULE_IDS, type LintRuleId, lintOpenApi } from '../../src/lint/index.js';
import type {
  OpenApiDocument,
  OpenApiOperation,
  OpenApiParameter,
  OpenApiResponse,
} from '../../src/openapi/types.js';

/**
 * The model: every path segment and every operation is generated together with the facts a reader
 * would state about it by hand (is it plural, hyphenated, a verb; what does the operation document).
 * The expected findings follow from those facts alone, never from the document the linter reads.
 */
interface SegmentModel {
  readonly text: string;
  readonly hyphenated: boolean;
  readonly verb: boolean;
  readonly plural: boolean;
}
const SEGMENTS: readonly SegmentModel[] = [
  { text: 'books', hyphenated: true, verb: false, plural: true },
  { text: 'account-types', hyphenated: true, verb: false, plural: true },
  { text: 'people', hyphenated: true, verb: false, plural: true },
  { text: 'book', hyphenated: true, verb: false, plural: false },
  { text: 'account-type', hyphenated: true, verb: false, plural: false },
  { text: 'accountTypes', hyphenated: false, verb: false, plural: true },
  { text: 'Books', hyphenated: false, verb: false, plural: true },
  { text: 'delete', hyphenated: true, verb: true, plural: false },
  { text: 'create-orders', hyphenated: true, verb: true, plural: true },
  { text: 'get_books', hyphenated: false, verb: true, plural: true },
  { text: 'getBooks', hyphenated: false, verb: true, plural: true },
  { text: 'cancelOrder', hyphenated: false, verb: true, plural: false },
];
const PREFIXES = [
  { text: '', ok: true },
  { text: '/v1', ok: true },
  { text: '/api/v2', ok: true },
  { text: '/v1.0', ok: false },
  { text: '/version2', ok: false },
  { text: '/V1', ok: false },
] as const;

interface OperationModel {
  readonly method: 'get' | 'post' | 'patch' | 'delete';
  readonly created: boolean;
  readonly errors: boolean;
  readonly cacheControl: boolean;
  readonly etag: boolean;
  readonly auth: 'none' | 'principal' | 'scopes';
  readonly declares401: boolean;
  readonly declares403: boolean;
  readonly rateLimited: boolean;
  readonly declares429: boolean;
  readonly idempotencyKey: boolean;
  readonly preconditions: boolean;
  readonly deprecated: boolean;
  readonly deprecationHeaders: boolean;
  readonly actionQuery: boolean;
  /** Documents If-Match and 412 (not 428): enough for a DELETE. */
  readonly ifMatch412: boolean;
  /**
   * Its 200 carries one resource whose id is a string of digits (JSON:API), and the path's last
   * parameter, when it has one, is declared as that same string or as an integer; or neither.
   */
  readonly resourceId: 'none' | 'same' | 'integer';
}

const operationModel = (method: OperationModel['method']) =>
  fc.record({
    method: fc.constant(method),
    created: fc.boolean(),
    errors: fc.boolean(),
    cacheControl: fc.boolean(),
    etag: fc.boolean(),
    auth: fc.constantFrom('none', 'principal', 'scopes'),
    declares401: fc.boolean(),
    declares403: fc.boolean(),
    rateLimited: fc.boolean(),
    declares429: fc.boolean(),
    idempotencyKey: fc.boolean(),
    preconditions: fc.boolean(),
    deprecated: fc.boolean(),
    deprecationHeaders: fc.boolean(),
    actionQuery: fc.boolean(),
    ifMatch412: fc.boolean(),
    resourceId: fc.constantFrom('none', 'same', 'integer'),
  }) as fc.Arbitrary<OperationModel>;

const pathModel = fc.record({
  prefix: fc.constantFrom(...PREFIXES),
  // Each segment optionally followed by a parameter.
  parts: fc.array(fc.record({ segment: fc.constantFrom(...SEGMENTS), param: fc.boolean() }), {
    minLength: 1,
    maxLength: 3,
  }),
  operations: fc.uniqueArray(
    fc
      .constantFrom('get', 'post', 'patch', 'delete')
      .chain((m) => operationModel(m as OperationModel['method'])),
    { selector: (o) => o.method, minLength: 1, maxLength: 4 },
  ),
});

function pathOf(model: PathModel): string {
  let path = model.prefix.text;
  model.parts.forEach((part, index) => {
    path += `/${part.segment.text}`;
    if (part.param) path += `/{p${index}}`;
  });
  return path;
}
/** The name `pathOf` gives the last segment's parameter, when the path ends in one. */
function lastParamOf(model: PathModel): string | undefined {
  return model.parts.at(-1)!.param ? `p${model.parts.length - 1}` : undefined;
}
type PathModel = {
  readonly prefix: (typeof PREFIXES)[number];
  readonly parts: readonly { readonly segment: SegmentModel; readonly param: boolean }[];
  readonly operations: readonly OperationModel[];
};

const DIGITS_ID = { type: 'string', pattern: '^[0-9]+$' } as const;

/** `lastParam`: the name of the path's last segment when it is a parameter. */
function operationOf(op: OperationModel, lastParam?: string): OpenApiOperation {
  const success: Record<string, { description: string }> = {};
  if (op.cacheControl) success['Cache-Control'] = { description: 'caching' };
  if (op.etag) success.ETag = { description: 'validator' };
  if (op.rateLimited) {
    success.RateLimit = { description: 'quota' };
    success['RateLimit-Policy'] = { description: 'policy' };
  }
  if (op.deprecationHeaders)
    Object.assign(success, { Deprecation: { description: 'd' }, Sunset: { description: 's' } });
  const responses: Record<string, OpenApiResponse> = {
    [op.method === 'post' ? '200' : '200']: {
      description: 'ok',
      headers: success,
      ...(op.resourceId === 'none'
        ? {}
        : {
            content: {
              'application/vnd.api+json': {
                schema: {
                  type: 'object',
                  properties: { data: { type: 'object', properties: { id: DIGITS_ID } } },
                },
              },
            },
          }),
    },
  };
  if (op.created)
    responses['201'] = { description: 'created', headers: { Location: { description: 'new' } } };
  // The one 4xx with its error document; the others below are declared without content.
  if (op.errors)
    responses['404'] = { description: 'missing', content: { 'application/vnd.api+json': { schema: {} } } };
  if (op.declares401) responses['401'] = { description: 'unauthenticated' };
  if (op.declares403) responses['403'] = { description: 'forbidden' };
  if (op.declares429)
    responses['429'] = { description: 'slow down', headers: { 'Retry-After': { description: 's' } } };
  if (op.preconditions)
    Object.assign(responses, { 412: { description: 'stale' }, 428: { description: 'needs If-Match' } });
  if (op.ifMatch412) responses['412'] = { description: 'stale' };
  const parameters: OpenApiParameter[] = [];
  if (lastParam !== undefined && op.resourceId !== 'none')
    parameters.push({
      name: lastParam,
      in: 'path',
      required: true,
      schema: op.resourceId === 'same' ? DIGITS_ID : { type: 'integer' },
    });
  if (op.idempotencyKey) parameters.push({ name: 'Idempotency-Key', in: 'header' as const });
  if (op.preconditions || op.ifMatch412) parameters.push({ name: 'If-Match', in: 'header' as const });
  if (op.actionQuery) parameters.push({ name: 'action', in: 'query' as const });
  return {
    responses,
    parameters,
    ...(op.auth === 'none'
      ? { security: [] }
      : { security: [{ bearer: op.auth === 'scopes' ? ['x:read'] : [] }] }),
    ...(op.deprecated ? { deprecated: true } : {}),
  };
}

/** What a careful reader says is broken, from the model's facts. */
function expectedFindings(model: PathModel, path: string): string[] {
  const found: string[] = [];
  const at = (rule: LintRuleId, method?: string) => found.push(`${rule} ${path} ${method ?? ''}`);
  if (!model.prefix.ok) at('version-prefix');
  for (const { segment, param } of model.parts) {
    if (!segment.hyphenated) at('lowercase-hyphenated');
    if (segment.verb) at('no-verbs');
    if (param && !segment.plural) at('plural-collections');
  }
  const endsInParam = model.parts.at(-1)!.param;
  const get = model.operations.find((op) => op.method === 'get');
  for (const op of model.operations) {
    const m = op.method.toUpperCase();
    if (op.actionQuery) at('no-action-query', m);
    if (op.method === 'post' && !endsInParam && !op.created) at('create-201-location', m);
    if (!op.errors) at('error-responses', m);
    if (op.method === 'get' && !op.cacheControl) at('get-caching-headers', m);
    if (op.auth !== 'none' && !op.declares401) at('auth-401-403', m);
    if (op.auth === 'scopes' && !op.declares403) at('auth-401-403', m);
    if (op.rateLimited && !op.declares429) at('ratelimit-429', m);
    if (op.method === 'post' && !op.idempotencyKey) at('post-idempotency-key', m);
    const deleteWithIfMatch = op.method === 'delete' && op.ifMatch412;
    if (
      (op.method === 'patch' || op.method === 'delete') &&
      get?.etag === true &&
      !op.preconditions &&
      !deleteWithIfMatch
    )
      at('write-preconditions', m);
    if (op.deprecated && !op.deprecationHeaders) at('deprecation-headers', m);
    if (endsInParam && op.resourceId === 'integer') at('path-id-type', m);
  }
  return found;
}

describe('lintOpenApi against a model of the conventions', () => {
  test.prop([fc.uniqueArray(pathModel, { selector: pathOf, minLength: 1, maxLength: 4 })])(
    'finds exactly the rules the model says are broken',
    (models) => {
      const paths: Record<string, Record<string, OpenApiOperation>> = {};
      const expected: string[] = [];
      for (const model of models) {
        const path = pathOf(model);
        paths[path] = Object.fromEntries(
          model.operations.map((op) => [op.method, operationOf(op, lastParamOf(model))]),
        );
        expected.push(...expectedFindings(model, path));
      }
      const document: OpenApiDocument = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths };
      const actual = lintOpenApi(document).map((f) => `${f.rule} ${f.path} ${f.method ?? ''}`);
      expect(actual.sort()).toEqual(expected.sort());
    },
  );

  test.prop([
    fc.uniqueArray(pathModel, { selector: pathOf, minLength: 1, maxLength: 3 }),
    fc.subarray([...LINT_RULE_IDS]),
  ])('a rule switched off never reports, and the others are unaffected', (models, off) => {
    const paths = Object.fromEntries(
      models.map((model) => [
        pathOf(model),
        Object.fromEntries(model.operations.map((op) => [op.method, operationOf(op, lastParamOf(model))])),
      ]),
    );
    const document: OpenApiDocument = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths };
    const all = lintOpenApi(document);
    const some = lintOpenApi(document, { rules: Object.fromEntries(off.map((id) => [id, 'off'])) });
    expect(some).toEqual(all.filter((finding) => !off.includes(finding.rule)));
  });
});

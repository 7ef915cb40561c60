import { requireAuth, requireScopes } from '../auth/middleware.js';
import { DEFAULT_BODY_LIMIT } from '../core/body.js';
import { contractsOf } from '../core/contract.js';
import { deepFreeze } from '../core/deep-freeze.js';
import { whenSettled } from '../core/maybe-promise.js';
import { isResourceBody } from '../core/resource-bodies.js';
import type {
  AnyCodec,
  ListedCodecs,
  ListedResponseSpec,
  ResourceBody,
  ResourceSchema,
  RouteAuth,
  RouteDefinition,
  RouteDeprecation,
  RouteInfo,
} from '../core/route.js';
import { parsePattern } from '../core/route-pattern.js';
import { deprecation } from '../deprecation/middleware.js';
import type { ApiError } from '../errors/api-error.js';
import { isSafeMethod } from '../http/methods.js';
import { type ApiResponse, type Context, contextKey, type Handler, type Middleware } from '../http/types.js';
import {
  isStandardSchema,
  type JsonSchemaConverter,
  type SchemaCodec,
  schemaCodec,
} from '../validation/standard-schema.js';
import { checkDeclaredLinks } from './declared-links.js';
import { decodeInput } from './decode-input.js';
import { acceptQueryLayer, checkQueryContent } from './query-route.js';
import { responseTypes } from './response-types.js';

/** How routes are declared, app-wide. */
export interface DeclareOptions {
  /**
   * The JSON Schema 2020-12 of a Standard Schema validator that gives none itself (valibot:
   * `@valibot/to-json-schema`). Without it, such a validator is refused at start-up, naming the route.
   */
  readonly jsonSchema?: JsonSchemaConverter;
}

type BodyDecoder = typeof import('../validation/decode-body.js').decodeJsonBody;
let bodyDecoder: BodyDecoder | undefined;

/**
 * The body decoder, loaded with the first request to a route that declares a body: an app whose
 * routes declare none (a read-only API, a Worker) never loads it (docs/runtimes.md, the size budget).
 * The body is read asynchronously anyway, so this costs one wait on the first such request only.
 */
function decodeBody(ctx: Context, spec: Parameters<BodyDecoder>[1]): Promise<unknown> {
  if (bodyDecoder !== undefined) return bodyDecoder(ctx, spec);
  return import('../validation/decode-body.js').then(({ decodeJsonBody }) => {
    bodyDecoder = decodeJsonBody;
    return decodeJsonBody(ctx, spec);
  });
}

/** A declaration checked and compiled: its description, its middleware and its decoding handler. */
export interface DeclaredRoute {
  readonly info: RouteInfo;
  readonly use: readonly Middleware[];
  readonly handler: Handler;
  readonly negotiate: ((accept: string | undefined) => string | undefined) | undefined;
}

/**
 * The 406 a request earns when none of the route's media types is acceptable (RFC 9110 section
 * 15.5.7). It is answered only where a representation would be sent: before the handler of an unsafe
 * method (after its auth, input and body were checked, so those errors keep their status), and in
 * place of a safe method's success. Errors are sent in a format the client accepts
 * (`negotiateErrorType`), so a client that accepts only problem details (RFC 9457 section 3) reads
 * the real status of every error.
 */
export const NOT_ACCEPTABLE = contextKey<ApiError>('not acceptable');

/**
 * Check a route declaration (a `TypeError` naming the route for anything malformed) and compile it:
 * the declared `auth` runs first, then path parameters and query are decoded (404 for a path
 * parameter a codec refuses, 400 for the query), then the route's middleware, then the body is
 * decoded and the handler runs with the decoded `params`, `query` and `body`.
 */
export function declareRoute(definition: RouteDefinition, options: DeclareOptions = {}): DeclaredRoute {
  const name = `${String(definition.method).toUpperCase()} ${String(definition.path)}`;
  const fail = (what: string): never => {
    throw new TypeError(`Route ${name}: ${what}`);
  };
  // A Standard Schema validator is listed and run as its codec, its JSON Schema taken now.
  const listed = (schema: unknown, what: string, io: 'input' | 'output' = 'input'): AnyCodec =>
    isStandardSchema(schema)
      ? (schemaCodec(schema, io, `Route ${name}: ${what}`, options.jsonSchema) as SchemaCodec).asCodec()
      : (schema as AnyCodec);
  if (typeof definition.handler !== 'function') fail('handler must be a function');
  const paramNames = parsePattern(definition.path, { enforce: false }).flatMap((segment) =>
    segment.kind === 'param' ? [segment.name] : [],
  );
  const params = codecsOf(definition.params ?? {}, 'params', fail, listed);
  for (const param of Object.keys(params)) {
    if (!paramNames.includes(param)) fail(`params names {${param}}, which is not in the path`);
  }
  const query =
    definition.query === undefined ? undefined : codecsOf(definition.query, 'query', fail, listed);
  const { body } = definition;
  const isQuery = String(definition.method).toUpperCase() === 'QUERY';
  if (isQuery && body === undefined)
    fail('a QUERY route declares its body: the content is the query (RFC 10008 section 2)');
  let bodyCodec: AnyCodec | undefined;
  if (body !== undefined) {
    if (!isCodec(body.codec) && !isStandardSchema(body.codec))
      fail('body.codec must be an io-ts codec or a Standard Schema validator');
    bodyCodec = listed(body.codec, 'body.codec');
    if (typeof body.type !== 'string' || body.type === '')
      fail('body.type must name the JSON:API resource type');
    if (body.id !== undefined && !paramNames.includes(body.id))
      fail(`body.id names {${body.id}}, which is not in the path`);
  }
  const bodyLimit = definition.bodyLimit ?? DEFAULT_BODY_LIMIT;
  if (!Number.isSafeInteger(bodyLimit) || bodyLimit < 0)
    fail('bodyLimit must be a non-negative integer of bytes');
  const auth: RouteAuth = definition.auth ?? 'none';
  const authLayer = authMiddleware(auth, fail);
  const deprecationLayer = deprecationMiddleware(definition.deprecated, fail);
  // The route's own layers, outermost first: the deprecation notice and a QUERY route's Accept-Query
  // on every answer, refusals included.
  const declared = [isQuery ? acceptQueryLayer() : undefined, deprecationLayer, authLayer].filter(
    (layer) => layer !== undefined,
  );
  const { negotiate, produces, profiles } = responseTypes(definition, fail);
  const responses: Record<string, ListedResponseSpec> = {};
  for (const [status, spec] of Object.entries(definition.responses ?? {})) {
    if (!/^[1-5]\d\d$/.test(status))
      fail(`responses has a status that is not an HTTP status code: ${status}`);
    if (typeof spec?.description !== 'string') fail(`responses[${status}].description must be a string`);
    if (spec.links !== undefined)
      checkDeclaredLinks(spec.links, `responses[${status}].links`, spec.body, fail);
    const where = `responses[${status}].body`;
    responses[status] = isStandardSchema(spec.body)
      ? { ...spec, body: listed(spec.body, where, 'output') }
      : isResourceBody(spec.body)
        ? { ...spec, body: listedResources(spec.body, where, listed) }
        : (spec as ListedResponseSpec);
  }
  const use = (definition.use ?? []) as readonly Middleware[];
  if (!Array.isArray(use) || use.some((layer) => typeof layer !== 'function'))
    fail('use must list middleware');

  const info: RouteInfo = deepFreeze(
    {
      method: definition.method.toUpperCase(),
      ...(definition.summary === undefined ? {} : { summary: definition.summary }),
      ...(definition.description === undefined ? {} : { description: definition.description }),
      pattern: definition.path,
      paramNames,
      params,
      query,
      body:
        body === undefined
          ? undefined
          : {
              codec: bodyCodec!,
              type: body.type,
              ...(body.id === undefined ? {} : { id: body.id }),
              ...(body.example === undefined ? {} : { example: body.example }),
            },
      responses,
      auth,
      bodyLimit,
      produces,
      ...(profiles === undefined ? {} : { profiles }),
      deprecated: definition.deprecated,
      middlewareCount: use.length,
      contracts: contractsOf([...declared, ...use]),
    },
    isUsersObject,
  );

  const decodeLayer =
    Object.keys(params).length > 0 || query !== undefined ? decodeInput(params, query) : undefined;
  const layers = [...declared, ...(decodeLayer === undefined ? [] : [decodeLayer]), ...use];
  const handler = acceptableOnly(definition.handler as unknown as Handler);
  const bodyId = body?.id;
  const terminal =
    body === undefined
      ? handler
      : (ctx: Context): Promise<ApiResponse> => {
          if (isQuery) checkQueryContent(ctx);
          return decodeBody(ctx, {
            codec: bodyCodec!,
            type: body.type,
            ...(bodyId === undefined ? {} : { id: pathId(ctx, bodyId, params[bodyId]) }),
          }).then((decoded) => {
            ctx.body = decoded;
            return handler(ctx);
          });
        };
  return { info, use: layers, handler: terminal, negotiate };
}

/** The handler, behind the route's {@link NOT_ACCEPTABLE} answer when the request earned one. */
function acceptableOnly(handler: Handler): Handler {
  return (ctx) => {
    const refused = ctx.get(NOT_ACCEPTABLE);
    if (refused === undefined) return handler(ctx);
    if (!isSafeMethod(ctx.request.method)) throw refused;
    const answer = (response: ApiResponse): ApiResponse => {
      const representation = response.json !== undefined || response.raw !== undefined;
      if (response.status < 300 && representation) throw refused;
      return response;
    };
    return whenSettled(handler(ctx), answer);
  };
}

function isCodec(value: unknown): value is AnyCodec {
  return typeof value === 'object' && value !== null && typeof (value as AnyCodec).decode === 'function';
}

function codecsOf(
  codecs: unknown,
  what: string,
  fail: (what: string) => never,
  listed: (schema: unknown, what: string) => AnyCodec,
): ListedCodecs {
  if (typeof codecs !== 'object' || codecs === null)
    fail(`${what} must map names to io-ts codecs or Standard Schema validators`);
  const result: Record<string, AnyCodec> = {};
  for (const [name, codec] of Object.entries(codecs as object)) {
    if (!isCodec(codec) && !isStandardSchema(codec))
      fail(`${what}.${name} must be an io-ts codec or a Standard Schema validator`);
    result[name] = listed(codec, `${what}.${name}`);
  }
  return result;
}

/**
 * Typed resources as `app.routes()` lists them: a validator's id by its input side (the text a path
 * and `data.id` carry), its attributes by its output side (what a response holds).
 */
function listedResources(
  body: ResourceBody,
  where: string,
  listed: (schema: unknown, what: string, io?: 'input' | 'output') => AnyCodec,
): ResourceBody<AnyCodec> {
  const each = ({ id, attributes, ...resource }: ResourceSchema, at: string): ResourceSchema<AnyCodec> => ({
    ...resource,
    ...(id === undefined ? {} : { id: listed(id, `${at}.id`) }),
    attributes: listed(attributes, `${at}.attributes`, 'output'),
  });
  const included = body.included?.map((resource, i) => each(resource, `${where}.included[${i}]`));
  const rest = included === undefined ? {} : { included };
  return 'resource' in body
    ? { resource: each(body.resource, `${where}.resource`), ...rest }
    : { collection: each(body.collection, `${where}.collection`), ...rest };
}

/** The `deprecation` layer a route's `deprecated` field builds; its options are checked here, at start-up. */
function deprecationMiddleware(
  deprecated: RouteDeprecation | undefined,
  fail: (what: string) => never,
): Middleware | undefined {
  if (deprecated === undefined) return undefined;
  try {
    return deprecation(deprecated);
  } catch (error) {
    return fail(`deprecated: ${(error as Error).message}`);
  }
}

function authMiddleware(auth: RouteAuth, fail: (what: string) => never): Middleware | undefined {
  if (auth === 'none') return undefined;
  if (auth === 'principal') return requireAuth();
  if (typeof auth === 'object' && auth !== null && Array.isArray(auth.scopes)) {
    try {
      return requireScopes({ scopes: auth.scopes });
    } catch (error) {
      return fail(`auth: ${(error as Error).message}`);
    }
  }
  return fail(`auth must be 'none', 'principal' or { scopes: [...] }, got ${JSON.stringify(auth)}`);
}

/**
 * The id of the resource in the path, as a JSON:API `data.id` must name it: the parameter as its codec
 * encodes it (the canonical form of what the path named), the string itself where it has none.
 */
function pathId(ctx: Context, name: string, codec: AnyCodec | undefined): string {
  const value = ctx.params[name];
  return codec === undefined ? (value as string) : String(codec.encode(value));
}

/** Codecs and validators are the user's objects: listed as they are, not frozen. */
function isUsersObject(value: object): boolean {
  return isCodec(value) || isStandardSchema(value);
}

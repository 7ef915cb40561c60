import * as t from 'io-ts';
import { conditional, PRIVATE_REVALIDATED, versionEtag } from 'rest-conventions/caching';
import {
  type Context,
  created,
  defineRoute,
  json,
  noContent,
  type ResourceSchema,
} from 'rest-conventions/core';
import { dataDocument, defineResourceType } from 'rest-conventions/envelope';
import { ApiError } from 'rest-conventions/errors';
import { type IdempotencyOptions, idempotency } from 'rest-conventions/idempotency';
import { bodyPointer, nullable, oneOf, strictObject, text, withSchema } from 'rest-conventions/validation';
import { versioning } from 'rest-conventions/versioning';
import { compareAndSet } from '../concurrency/compare-and-set.js';
import { standardId } from '../ids.js';
import {
  STANDARD_STATUSES,
  type Standard,
  type StandardLookup,
  type StandardStore,
  type StandardWrite,
} from './standard-store.js';
import { LISTING_QUERY, listPage, STANDARD_ATTRIBUTES } from './standards-listing.js';
import {
  filterOfToken,
  filterToken,
  normalizeFilter,
  queryPage,
  StandardsFilter,
} from './standards-query.js';

export const STANDARDS_PATH = '/api/v1/standards/';
/** Where a standards query is a resource of its own: its equivalent resource (RFC 10008 section 2.2). */
export const STANDARD_QUERIES_PATH = '/api/v1/standard-queries/';

/** How a standard is shown: an explicit allow-list (no internal review notes). */
export const standardResource = defineResourceType<Standard, (typeof STANDARD_ATTRIBUTES)[number]>({
  type: 'standards',
  id: (standard) => standard.id,
  attributes: [...STANDARD_ATTRIBUTES],
  links: (standard) => ({ self: `${STANDARDS_PATH}${standard.id}` }),
});

const code = text({
  maxLength: 32,
  pattern: /^[A-Z0-9][A-Z0-9.-]*$/,
  description: 'a code of 1 to 32 upper-case letters, digits, dots or hyphens',
});
const description = nullable(text({ maxLength: 2000 }));
const status = oneOf(STANDARD_STATUSES);

export const StandardCreate = strictObject({ code, name: text({ maxLength: 200 }) }, { description, status });
export const StandardUpdate = strictObject({}, { code, name: text({ maxLength: 200 }), description, status });

/**
 * A standard as the API description types it: a sparse fieldset (`fields[standards]`) may leave out
 * any attribute, so each is optional. `publishedAt` is set once the standard is first published.
 */
export const standardSchema: ResourceSchema = {
  type: 'standards',
  id: standardId,
  attributes: strictObject(
    {},
    {
      code,
      name: text({ maxLength: 200 }),
      description,
      status,
      publishedAt: nullable(
        withSchema(new t.Type<string>('DateTime', t.string.is, t.string.validate, t.identity), {
          type: 'string',
          format: 'date-time',
        }),
      ),
    },
  ),
};

/** Everything under `/api/v1/` is version 1: `Accept: ...;version=2` there is a 400, not a fallback. */
const v1 = versioning({ supported: [1], default: 1 });

function written(result: StandardWrite, ctx: Context): Standard {
  if (result.kind === 'duplicate-code') {
    throw new ApiError(409, {
      code: 'duplicate-code',
      detail: 'A standard with this code already exists.',
      source: { pointer: bodyPointer(ctx, 'code') },
    });
  }
  return result.standard;
}

function notFound(): ApiError {
  return new ApiError(404, { detail: 'No standard with this id.' });
}

function standardDocument(standard: Standard) {
  return dataDocument(standardResource.toResource(standard), {
    links: { self: `${STANDARDS_PATH}${standard.id}` },
  });
}

export interface StandardsDeps {
  readonly standardStore: StandardStore;
  /** The idempotency options every keyed route shares: the store and its call bound. */
  readonly keyedWrites: Pick<IdempotencyOptions, 'store' | 'storeTimeoutMs'>;
}

const READ = { scopes: ['standards:read'] } as const;

/** The filter's results as a collection, linked by the GET of its equivalent resource, page by page. */
async function queryResults(standards: StandardStore, filter: StandardsFilter) {
  const normal = normalizeFilter(filter);
  const { size, number } = normal.page as { size: number; number: number };
  const page = queryPage(normal, await standards.list());
  const at = (n: number) =>
    `${STANDARD_QUERIES_PATH}${filterToken({ ...normal, page: { size, number: n } })}`;
  const self = at(number);
  return {
    self,
    document: dataDocument(
      page.standards.map((s) => standardResource.toResource(s)),
      {
        links: {
          self,
          ...(page.hasNext ? { next: at(number + 1) } : {}),
          ...(number > 1 ? { prev: at(number - 1) } : {}),
        },
        meta: { total: page.total },
      },
    ),
  };
}

const QUERY_RESULTS = {
  description: 'A page of the standards the filter selects, by code; `meta.total` counts them all',
  body: { collection: standardSchema },
} as const;
const WRITE = { scopes: ['standards:write'] } as const;

/** The standards collection under `/api/v1/standards/` (docs/envelope.md, docs/caching.md). */
export function standardsRoutes(deps: StandardsDeps) {
  const { standardStore: standards, keyedWrites } = deps;
  // The live standard, loaded once for the validators and the handler; anything else is a 404. A
  // keyed PATCH loads through its claim's transaction: one connection from claim to completion.
  const live = async (ctx: Context<{ readonly standard_id: string }>): Promise<Standard> => {
    const found = await standards.find(ctx.params.standard_id, ctx);
    if (found.kind !== 'live') throw notFound();
    return found.standard;
  };
  const validators = (_ctx: Context, standard: Standard) => ({
    etag: versionEtag(standard.version),
    lastModified: standard.updatedAt,
  });
  const readable = conditional({ load: live, validators, policy: PRIVATE_REVALIDATED });
  const writable = conditional({ load: live, validators, requireIfMatch: true });
  // DELETE: live or already deleted (a repeated DELETE is 204 again); an If-Match is honoured (412
  // when stale or gone); without one the delete is unconditional: it overwrites nobody's change.
  const deletable = conditional({
    load: async (ctx: Context<{ readonly standard_id: string }>) => {
      const found = await standards.find(ctx.params.standard_id);
      if (found.kind === 'absent') throw notFound();
      return found;
    },
    validators: (ctx: Context, found: StandardLookup) =>
      found.kind === 'live' ? validators(ctx, found.standard) : undefined,
  });
  const one = `${STANDARDS_PATH}{standard_id}` as const;
  return [
    defineRoute({
      method: 'GET',
      path: STANDARDS_PATH,
      auth: READ,
      query: LISTING_QUERY,
      summary: 'List standards',
      responses: { 200: { description: 'A page of standards', body: { collection: standardSchema } } },
      use: [v1, conditional({ policy: PRIVATE_REVALIDATED })],
      handler: async (ctx) => {
        const { standards: page, links } = await listPage(ctx, standards, ctx.query);
        const fields = ctx.query['fields[standards]'];
        const fieldSet = fields === undefined ? undefined : new Set<string>(fields);
        return json(
          200,
          dataDocument(
            page.map((s) => standardResource.toResource(s, ctx.var.principal, fieldSet)),
            { links },
          ),
        );
      },
    }),
    defineRoute({
      method: 'QUERY',
      path: STANDARDS_PATH,
      auth: READ,
      summary: 'Query standards',
      description:
        'A filter the query string cannot say (RFC 10008): any of several statuses, any of several code prefixes, a range of publication days (UTC, both ends included), and a page. `Location` is the query as a resource: a GET there runs it again.',
      body: {
        codec: StandardsFilter,
        type: 'standards',
        example: {
          status: ['draft', 'published'],
          codePrefix: ['ISO-', 'RFC-'],
          publishedAt: { from: '2020-01-01' },
        },
      },
      bodyLimit: 4096,
      responses: {
        200: {
          ...QUERY_RESULTS,
          headers: {
            Location: {
              description:
                'The equivalent resource: a GET there runs the same query (RFC 10008 section 2.4).',
              required: true,
            },
          },
        },
      },
      use: [v1, conditional({ policy: PRIVATE_REVALIDATED })],
      handler: async (ctx) => {
        const { self, document } = await queryResults(standards, ctx.body);
        const response = json(200, document);
        response.headers.location = self;
        return response;
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${STANDARD_QUERIES_PATH}{query_id}`,
      auth: READ,
      summary: 'Run a standards query again',
      description:
        'The equivalent resource of a `QUERY /api/v1/standards` (RFC 10008 section 2.2), named by its `Location`.',
      responses: { 200: QUERY_RESULTS },
      use: [v1, conditional({ policy: PRIVATE_REVALIDATED })],
      handler: async (ctx) => {
        const filter = filterOfToken(ctx.params.query_id);
        if (filter === undefined) throw new ApiError(404, { detail: 'No standards query has this id.' });
        return json(200, (await queryResults(standards, filter)).document);
      },
    }),
    defineRoute({
      method: 'POST',
      path: STANDARDS_PATH,
      auth: WRITE,
      summary: 'Create a standard',
      body: {
        codec: StandardCreate,
        type: 'standards',
        example: { code: 'RFC-9110', name: 'HTTP Semantics', status: 'published' },
      },
      responses: {
        201: {
          description: 'The standard created',
          body: { resource: standardSchema },
          headers: { Location: { description: 'The new standard', required: true } },
        },
        409: { description: 'A standard with this code exists', body: 'errors' },
      },
      use: [v1, idempotency({ ...keyedWrites, required: true })],
      handler: async (ctx) => {
        const standard = written(await standards.create(ctx.body, ctx), ctx);
        return created(`${STANDARDS_PATH}${standard.id}`, standardDocument(standard));
      },
    }),
    defineRoute({
      method: 'GET',
      path: one,
      params: { standard_id: standardId },
      auth: READ,
      summary: 'Get a standard',
      responses: { 200: { description: 'One standard', body: { resource: standardSchema } } },
      use: [v1, readable],
      handler: (ctx) => json(200, standardDocument(ctx.var.entity)),
    }),
    defineRoute({
      method: 'PATCH',
      path: one,
      params: { standard_id: standardId },
      auth: WRITE,
      summary: 'Change a standard',
      body: { codec: StandardUpdate, type: 'standards', id: 'standard_id', example: { status: 'retired' } },
      responses: {
        200: {
          description: 'The standard changed',
          body: { resource: standardSchema },
          headers: {
            ETag: {
              description: 'The entity tag of the standard as it now is (RFC 9110 section 8.8.3).',
              required: true,
            },
          },
        },
      },
      use: [v1, idempotency(keyedWrites), writable],
      handler: (ctx) => {
        const checked = ctx.var.entity;
        return compareAndSet(
          ctx,
          checked,
          async (version, request) => {
            const result = await standards.update(checked.id, version, ctx.body, request);
            return result === undefined ? undefined : written(result, ctx);
          },
          standardDocument,
        );
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: one,
      params: { standard_id: standardId },
      auth: WRITE,
      summary: 'Delete a standard',
      responses: { 204: { description: 'The standard is gone (or already was)' } },
      use: [v1, deletable],
      handler: async (ctx) => {
        if (ctx.var.entity.kind === 'live') await standards.delete(ctx.params.standard_id);
        return noContent();
      },
    }),
  ];
}

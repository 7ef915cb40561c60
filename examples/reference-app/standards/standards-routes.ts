import * as t from 'io-ts';
import type { App, Context } from 'rest-conventions';
import { requireScopes } from 'rest-conventions/auth';
import { created, json, noContent } from 'rest-conventions/core';
import { dataDocument, defineResourceType } from 'rest-conventions/envelope';
import { ApiError } from 'rest-conventions/errors';
import { bodyPointer, decodeJsonBody, oneOf, strictObject, text } from 'rest-conventions/validation';
import {
  STANDARD_STATUSES,
  type Standard,
  type StandardStore,
  type StandardWrite,
} from './standard-store.js';
import { listingQuery, listPage, STANDARD_ATTRIBUTES } from './standards-listing.js';

export const STANDARDS_PATH = '/api/v1/standards/';

/** How a standard is shown: an explicit allow-list (no internal review notes). */
export const standardResource = defineResourceType<Standard, (typeof STANDARD_ATTRIBUTES)[number]>({
  type: 'standards',
  id: (standard) => standard.id,
  attributes: [...STANDARD_ATTRIBUTES],
  links: (standard) => ({ self: `${STANDARDS_PATH}${standard.id}` }),
});

const code = new t.Type<string, string, unknown>(
  'a code of 1 to 32 upper-case letters, digits, dots or hyphens',
  (u): u is string => typeof u === 'string' && /^[A-Z0-9][A-Z0-9.-]{0,31}$/.test(u),
  (u, c) => (typeof u === 'string' && /^[A-Z0-9][A-Z0-9.-]{0,31}$/.test(u) ? t.success(u) : t.failure(u, c)),
  t.identity,
);
const description = t.union([text({ maxLength: 2000 }), t.null], 'a string of 1 to 2000 characters or null');
const status = oneOf(STANDARD_STATUSES);

export const StandardCreate = strictObject({ code, name: text({ maxLength: 200 }) }, { description, status });
export const StandardUpdate = strictObject({}, { code, name: text({ maxLength: 200 }), description, status });

const read = [requireScopes({ scopes: ['standards:read'] })];
const write = [requireScopes({ scopes: ['standards:write'] })];

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

/** The standards collection under `/api/v1/standards/` (seed section 4). */
export class StandardsRoutes {
  static readonly inject = ['standardStore'] as const;

  constructor(private readonly standards: StandardStore) {}

  register(app: App): void {
    app.route({
      method: 'GET',
      path: STANDARDS_PATH,
      use: read,
      handler: async (ctx) => {
        const query = listingQuery(ctx);
        const { standards, links } = listPage(ctx, await this.standards.list(), query);
        const fields = query['fields[standards]'];
        const fieldSet = fields === undefined ? undefined : new Set<string>(fields);
        return json(
          200,
          dataDocument(
            standards.map((s) => standardResource.toResource(s, ctx.principal, fieldSet)),
            { links },
          ),
        );
      },
    });
    app.route({
      method: 'POST',
      path: STANDARDS_PATH,
      use: write,
      handler: async (ctx) => {
        const input = await decodeJsonBody(ctx, { codec: StandardCreate, type: 'standards' });
        const standard = written(await this.standards.create(input), ctx);
        return created(`${STANDARDS_PATH}${standard.id}`, standardDocument(standard));
      },
    });
    app.route({
      method: 'GET',
      path: `${STANDARDS_PATH}{standard_id}`,
      use: read,
      handler: async (ctx) => json(200, standardDocument(await this.live(ctx.params.standard_id))),
    });
    app.route({
      method: 'PATCH',
      path: `${STANDARDS_PATH}{standard_id}`,
      use: write,
      handler: async (ctx) => {
        await this.live(ctx.params.standard_id);
        const changes = await decodeJsonBody(ctx, { codec: StandardUpdate, type: 'standards' });
        const result = await this.standards.update(ctx.params.standard_id, changes);
        if (result === undefined) throw notFound();
        return json(200, standardDocument(written(result, ctx)));
      },
    });
    app.route({
      method: 'DELETE',
      path: `${STANDARDS_PATH}{standard_id}`,
      use: write,
      handler: async (ctx) => {
        const found = await this.standards.find(ctx.params.standard_id);
        if (found.kind === 'absent') throw notFound();
        if (found.kind === 'live') await this.standards.delete(ctx.params.standard_id);
        return noContent();
      },
    });
  }

  private async live(id: string): Promise<Standard> {
    const found = await this.standards.find(id);
    if (found.kind !== 'live') throw notFound();
    return found.standard;
  }
}

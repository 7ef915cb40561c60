import type { App, Context } from 'rest-conventions';
import { requireScopes } from 'rest-conventions/auth';
import { conditional, PRIVATE_REVALIDATED, preconditionFailed, versionEtag } from 'rest-conventions/caching';
import { contextKey, created, json, noContent } from 'rest-conventions/core';
import { dataDocument, defineResourceType } from 'rest-conventions/envelope';
import { ApiError } from 'rest-conventions/errors';
import { IDEMPOTENCY_TRANSACTION, type IdempotencyStore, idempotency } from 'rest-conventions/idempotency';
import {
  bodyPointer,
  decodeJsonBody,
  nullable,
  oneOf,
  strictObject,
  text,
} from 'rest-conventions/validation';
import { versioning } from 'rest-conventions/versioning';
import {
  STANDARD_STATUSES,
  type Standard,
  type StandardStore,
  type StandardWrite,
} from './standard-store.js';
import { listingQuery, listPage, STANDARD_ATTRIBUTES } from './standards-listing.js';

export const STANDARDS_PATH = '/api/v1/standards/';

const LOADED = contextKey<Standard>('the standard of this request');

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

/** Everything under `/api/v1/` is version 1: `Accept: ...;version=2` there is a 400, not a fallback. */
const v1 = versioning({ supported: [1], default: 1 });
const read = [v1, requireScopes({ scopes: ['standards:read'] })];
const write = [v1, requireScopes({ scopes: ['standards:write'] })];

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
  static readonly inject = ['standardStore', 'idempotencyStore'] as const;

  constructor(
    private readonly standards: StandardStore,
    private readonly idempotencyStore: IdempotencyStore,
  ) {}

  register(app: App): void {
    const validators = (ctx: Context<{ readonly standard_id: string }>) => this.validators(ctx);
    app.route({
      method: 'GET',
      path: STANDARDS_PATH,
      use: [...read, conditional({ policy: PRIVATE_REVALIDATED })],
      handler: async (ctx) => {
        const query = listingQuery(ctx);
        const { standards, links } = await listPage(ctx, this.standards, query);
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
      use: [...write, idempotency({ store: this.idempotencyStore, required: true })],
      handler: async (ctx) => {
        const input = await decodeJsonBody(ctx, { codec: StandardCreate, type: 'standards' });
        const inTransaction = { transaction: ctx.get(IDEMPOTENCY_TRANSACTION) };
        const standard = written(await this.standards.create(input, inTransaction), ctx);
        return created(`${STANDARDS_PATH}${standard.id}`, standardDocument(standard));
      },
    });
    app.route({
      method: 'GET',
      path: `${STANDARDS_PATH}{standard_id}`,
      use: [...read, conditional({ validators, policy: PRIVATE_REVALIDATED })],
      handler: async (ctx) => json(200, standardDocument(await this.live(ctx))),
    });
    app.route({
      method: 'PATCH',
      path: `${STANDARDS_PATH}{standard_id}`,
      use: [
        ...write,
        idempotency({ store: this.idempotencyStore }),
        conditional({ validators, requireIfMatch: true }),
      ],
      handler: async (ctx) => {
        const checked = await this.live(ctx);
        const changes = await decodeJsonBody(ctx, {
          codec: StandardUpdate,
          type: 'standards',
          id: checked.id,
        });
        // Compare-and-set against the version If-Match was checked against.
        const inTransaction = { transaction: ctx.get(IDEMPOTENCY_TRANSACTION) };
        const result = await this.standards.update(checked.id, checked.version, changes, inTransaction);
        if (result === undefined) throw preconditionFailed();
        const updated = written(result, ctx);
        return json(200, standardDocument(updated), { etag: versionEtag(updated.version) });
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

  /** Validators of a live standard, which is kept for the handler (one lookup per request). */
  private async validators(ctx: Context<{ readonly standard_id: string }>) {
    const found = await this.standards.find(ctx.params.standard_id);
    if (found.kind !== 'live') return undefined;
    ctx.set(LOADED, found.standard);
    return { etag: versionEtag(found.standard.version), lastModified: found.standard.updatedAt };
  }

  private async live(ctx: Context<{ readonly standard_id: string }>): Promise<Standard> {
    const loaded = ctx.get(LOADED);
    if (loaded !== undefined) return loaded;
    const found = await this.standards.find(ctx.params.standard_id);
    if (found.kind !== 'live') throw notFound();
    return found.standard;
  }
}

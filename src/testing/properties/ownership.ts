import fc from 'fast-check';
import type { OpenApiDocument, OpenApiOperation } from '../../openapi/types.js';
import type { TargetRequest } from '../target.js';
import { idOf } from './context.js';
import type { PropertyFactory } from './property.js';

/**
 * What one user creates is invisible to another, as if missing (docs/ownership.md; RFC 9110 section
 * 15.5.5 allows 404 for a resource the server will not disclose), on its own path and on every nested
 * one. Only where the document requires credentials and no scope: a public resource is public by
 * design, and one that any holder of a scope may read (`standards:read`, RFC 6749 section 3.3) is
 * shared by design.
 */
export const ownershipProperty: PropertyFactory = (ctx) =>
  ctx.creates
    .filter((hint) => {
      const item = ctx.match('GET', `${hint.path.replace(/\/$/, '')}/1`);
      return item !== undefined && declaresOwnedAccess(ctx.document, item.operation);
    })
    .map((hint) => ({
      id: 'ownership',
      name: `what POST ${hint.path} makes for one user is invisible to another, as if missing`,
      check: () =>
        ctx.run(
          fc.constant(null),
          async () => {
            const { path } = await ctx.createdByA(hint);
            const id = idOf(path);
            const missingId = `${id}9999999`;
            const swap = (p: string) => p.replace(new RegExp(`${escapeRegExp(id)}$`), missingId);
            const nested = ctx.subjects && hint.nested ? hint.nested(id, ctx.subjects.a) : [];
            const secured = nested.filter((p) => {
              const found = ctx.match('GET', p);
              return found === undefined || declaresAuth(ctx.document, found.operation);
            });
            for (const owned of [path, ...secured]) {
              const foreign: TargetRequest = {
                method: 'GET',
                path: owned,
                headers: ctx.bearer(ctx.principals.b),
              };
              const theirs = await ctx.send(foreign);
              const absent = await ctx.send({ ...foreign, path: swap(owned) });
              if (theirs.status < 400) ctx.fail("another user's resource was served", foreign, theirs);
              if (
                theirs.status !== absent.status ||
                normalized(theirs.text, id) !== normalized(absent.text, missingId)
              ) {
                ctx.fail(
                  `another user's resource answers ${theirs.status}, a missing one ${absent.status}: they must look the same`,
                  foreign,
                  theirs,
                );
              }
            }
          },
          1,
        ),
    }));

/** The operation requires credentials: a non-empty security requirement, its own or the document's. */
function declaresAuth(document: OpenApiDocument, operation: OpenApiOperation): boolean {
  const requirements = operation.security ?? document.security ?? [];
  return requirements.length > 0 && requirements.every((r) => Object.keys(r).length > 0);
}

/**
 * The operation requires credentials but no scope: access is the caller's own, not granted by a scope
 * every holder shares.
 */
function declaresOwnedAccess(document: OpenApiDocument, operation: OpenApiOperation): boolean {
  const requirements = operation.security ?? document.security ?? [];
  return (
    declaresAuth(document, operation) &&
    requirements.every((r) => Object.values(r).every((scopes) => scopes.length === 0))
  );
}

/**
 * Error bodies name the id asked for; compare them with the id taken out where it stands alone (id
 * 40 is not taken out of a `"status":"404"`).
 */
function normalized(text: string, id: string): string {
  return text
    .replace(new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(id)}(?![A-Za-z0-9])`, 'g'), '<id>')
    .replace(/"id":"[^"]*"/g, '"id":"<error-id>"');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

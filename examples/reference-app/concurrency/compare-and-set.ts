import { preconditionFailedError, versionEtag } from 'rest-conventions/caching';
import { type ApiResponse, json } from 'rest-conventions/core';
import type { RequestScope } from '../database/request-scope.js';

/**
 * The write of a `PATCH` that required `If-Match` (RFC 9110 section 13.1.1): compare-and-set against
 * the version the precondition was checked against, inside the idempotency transaction when there is
 * one. Of two writers that both passed the precondition only the first write lands; the other gets
 * 412. Answers 200 with the changed resource and its new `ETag`.
 *
 * `write(expectedVersion, request)` returns the changed record, or `undefined` when the stored
 * version is no longer `expectedVersion`.
 */
export async function compareAndSet<R extends { readonly version: number }>(
  ctx: RequestScope,
  checked: { readonly version: number },
  write: (expectedVersion: number, request: RequestScope) => Promise<R | undefined>,
  document: (record: R) => unknown,
): Promise<ApiResponse> {
  const updated = await write(checked.version, ctx);
  if (updated === undefined) throw preconditionFailedError();
  return json(200, document(updated), { etag: versionEtag(updated.version) });
}

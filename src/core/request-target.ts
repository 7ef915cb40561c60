/**
 * The request target and `Host` answered before anything else, in `createApp` and in every
 * framework's `conventions(...)` alike: 308 to a path without dot segments, 400 for two `Host` fields
 * or a target naming no resource here (the decision: `decideRequestTarget`, docs/security.md).
 */
import { codedError } from '../errors/coded-error.js';
import { renderError } from '../errors/render.js';
import { decideRequestTarget } from '../http/request-target.js';
import type { ApiResponse, Context } from '../http/types.js';

/**
 * The answer the request's target and `Host` call for, or `undefined` to go on. It comes before
 * every layer, as node's parser refusals do: no layer counts, authenticates, claims or stores a
 * request to a path it would not route (an idempotency layer storing a 308 under the client's key
 * would refuse the same key at the path the client is sent to).
 */
export function answerRequestTarget(ctx: Context): ApiResponse | undefined {
  const { request } = ctx;
  const decision = decideRequestTarget({
    path: request.path,
    search: request.search,
    host: request.headers.get('host'),
    mountPath: request.mountPath,
  });
  if (decision === undefined) return undefined;
  if (decision.kind === 'normalize') return { status: 308, headers: { location: decision.location } };
  const { code, detail, source } = decision;
  return renderError(codedError(400, code, { detail, source }), ctx);
}

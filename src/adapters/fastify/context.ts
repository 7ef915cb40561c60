/**
 * The rest-conventions context of each Fastify request inside the `conventions` plugin, kept as a
 * Fastify request decoration (`decorateRequest`, set in Fastify's request constructor) rather than a
 * WeakMap entry or a property added later: each request keeps one shape, and no weak table is written
 * per request (docs/benchmarks.md, "Adapter overhead").
 */
import type { FastifyRequest } from 'fastify';
import type { Context } from '../../http/types.js';

export const CONTEXT = Symbol('rest-conventions context');

export type WithContext = FastifyRequest & { [CONTEXT]?: Context | null };

/**
 * The rest-conventions context of a request that went through `conventions`: its `var`
 * (what its layers added: `var.principal` after `authenticate`), `requestId`, and what primitives such as `decodeJsonBody` need.
 */
export function conventionsContext(request: FastifyRequest): Context | undefined {
  return (request as WithContext)[CONTEXT] ?? undefined;
}

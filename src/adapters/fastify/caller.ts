/**
 * The typed caller in Fastify: the `principal` request decoration (declared by the `conventions`
 * plugin, typed on `FastifyRequest` as Fastify plugins type their decorations) set by the
 * `requireCaller()` preHandler hook.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../http/types.js';
import { callerCheck, type RequireCallerOptions } from '../caller.js';
import { conventionsContext } from './context.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The caller, set by the `requireCaller()` preHandler of rest-conventions/adapters/fastify; `undefined` on a
     * route without it.
     */
    principal: Principal;
  }
}

/** The request decoration {@link requireCaller} sets (declared by the `conventions` plugin). */
export const PRINCIPAL = 'principal';

/**
 * A preHandler hook for routes that need a caller: `server.post('/orders', { preHandler:
 * requireCaller() }, (request) => request.principal.sub)`. An anonymous request is the 401
 * `requireAuth()` answers, with `WWW-Authenticate` (RFC 6750 section 3.1), before the handler runs.
 */
export function requireCaller(
  options?: RequireCallerOptions,
): (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void {
  const callerOf = callerCheck(options, 'fastify');
  return function fastifyRequireCaller(request, _reply, done) {
    let principal: Principal;
    try {
      principal = callerOf(conventionsContext(request));
    } catch (error) {
      done(error as Error);
      return;
    }
    request.principal = principal;
    done();
  };
}

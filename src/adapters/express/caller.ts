/**
 * The typed caller in Express: `requireCaller()` as route middleware, the principal in `res.locals`,
 * Express's own channel from middleware to handler, typed by its `Locals` generic.
 */
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Response } from 'express';
import type { Principal } from '../../http/types.js';
import { callerCheck, type RequireCallerOptions } from '../caller.js';
import { CONTEXTS } from './context.js';

/** What {@link requireCaller} gives the handlers after it: `res.locals.principal`. */
export interface CallerLocals extends Record<string, unknown> {
  principal: Principal;
}

/**
 * A route middleware typed so that Express infers the route's `Locals` from it and nothing else:
 * `req` is read as a plain message, so the route's path parameters, body and query keep their types.
 */
export type CallerGuard = (
  req: IncomingMessage,
  res: Response<unknown, CallerLocals>,
  next: NextFunction,
) => void;

/**
 * Route middleware after `conventions(...)`: `app.post('/orders', requireCaller(), (req, res) =>
 * res.locals.principal.sub)`, with `principal` typed (not optional) in the handlers after it. An
 * anonymous request is the 401 `requireAuth()` answers, with `WWW-Authenticate` (RFC 6750 section
 * 3.1), through `conventionsErrors()`.
 */
export function requireCaller(options?: RequireCallerOptions): CallerGuard {
  const callerOf = callerCheck(options, 'express');
  return function expressRequireCaller(req, res, next) {
    res.locals.principal = callerOf(CONTEXTS.get(req));
    next();
  };
}

import type { Middleware } from 'rest-conventions';
import { contractOf, describeLayer, type OperationContract } from 'rest-conventions/core';
import { HEALTH_PATHS } from './health-routes.js';

/**
 * `middleware` for every request but the health probes (`HEALTH_PATHS`), which skip it. Its contract
 * goes with it, with its headers no longer promised on every response (the probes do not carry them).
 */
export function exceptHealth(middleware: Middleware): Middleware {
  const skipping: Middleware = function exceptHealthProbes(ctx, next) {
    return HEALTH_PATHS.has(ctx.request.path) ? next() : middleware(ctx, next);
  };
  return describeLayer(skipping, ...contractOf(middleware).map(notPromised));
}

function notPromised(contract: OperationContract): OperationContract {
  const loosen = (headers: OperationContract['allHeaders']) =>
    headers &&
    Object.fromEntries(Object.entries(headers).map(([name, h]) => [name, { ...h, required: false }]));
  return {
    ...contract,
    allHeaders: loosen(contract.allHeaders),
    successHeaders: loosen(contract.successHeaders),
  };
}

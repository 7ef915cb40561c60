import { appendListHeader } from '../http/header-copy.js';
import type { ApiResponse, Context } from '../http/types.js';
import { type CachePolicy, cachePolicyApplies } from './cache-policy.js';

// The caching headers `conditional` sets on every response: Cache-Control and Vary.

export function applyCacheHeaders(
  response: ApiResponse,
  ctx: Context,
  policy: CachePolicy | undefined,
  vary: VaryField,
  varyAuthenticated: VaryField,
): ApiResponse {
  const { headers } = response;
  const authenticated =
    ctx.var.principal !== undefined || ctx.request.headers.get('authorization') !== undefined;
  if (policy !== undefined && cachePolicyApplies(ctx.request.method, response.status))
    headers['cache-control'] ??= authenticated ? policy.authenticated : policy.anonymous;
  const field = authenticated ? varyAuthenticated : vary;
  if (field.tokens.length === 0) return response;
  // Usually nothing set Vary yet: the joined value is ready.
  if (headers.vary === undefined) headers.vary = field.value;
  else appendListHeader(headers, 'vary', field.tokens);
  return response;
}

/** A Vary list and its field value, joined once. */
export interface VaryField {
  readonly tokens: readonly string[];
  readonly value: string;
}

export function varyField(tokens: readonly string[]): VaryField {
  return { tokens, value: tokens.join(', ') };
}

/**
 * The RateLimit fields as draft-ietf-httpapi-ratelimit-headers-11 defines them, read the way a client
 * reads them: `RateLimit-Policy` (section 3) and `RateLimit` (section 4) are Structured Field Lists
 * (RFC 9651 section 3.1) of policy names (a String or Token) with parameters. A policy needs its
 * quota `q` (section 3.1.1), a `RateLimit` item its available quota `r` (section 4.1.1); `w` and `t`
 * are optional non-negative integers.
 */

import { parseItemList } from '../http/structured-fields.js';

const count = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** What is wrong with a `RateLimit-Policy` and `RateLimit` pair by draft-11, or `undefined`. */
export function rateLimitFieldProblem(policyField: string, rateLimitField: string): string | undefined {
  const policies = parseItemList(policyField);
  if (policies === undefined) return 'RateLimit-Policy is not a Structured Field List (draft-11 section 3)';
  for (const [name, params] of policies) {
    if (typeof name !== 'string')
      return 'a RateLimit-Policy item is not a policy name (draft-11 section 3.1)';
    if (!count(params.q))
      return `RateLimit-Policy "${name}" has no quota q, a non-negative integer (draft-11 section 3.1.1)`;
    if (params.w !== undefined && !count(params.w))
      return `RateLimit-Policy "${name}" has a window w that is not a non-negative integer (draft-11 section 3.1.3)`;
  }
  const limits = parseItemList(rateLimitField);
  if (limits === undefined) return 'RateLimit is not a Structured Field List (draft-11 section 4)';
  for (const [name, params] of limits) {
    if (typeof name !== 'string') return 'a RateLimit item is not a policy name (draft-11 section 4.1)';
    if (!count(params.r))
      return `RateLimit "${name}" has no available quota r, a non-negative integer (draft-11 section 4.1.1)`;
    if (params.t !== undefined && !count(params.t))
      return `RateLimit "${name}" has an effective window t that is not a non-negative integer (draft-11 section 4.1.2)`;
  }
  return undefined;
}

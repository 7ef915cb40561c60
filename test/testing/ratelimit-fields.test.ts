/**
 * The kit reads the RateLimit fields as draft-ietf-httpapi-ratelimit-headers-11 defines them: the
 * draft's examples pass, the older draft's forms do not, and its list reading agrees with an
 * independent RFC 9651 parser on generated lists.
 */
import { fc, test } from '@fast-check/vitest';
import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { parseItemList } from '../../src/http/structured-fields.js';
import { rateLimitFieldProblem } from '../../src/testing/ratelimit-fields.js';

describe('rateLimitFieldProblem', () => {
  it.each([
    ['"default";q=100;w=10', '"default";r=50;t=30'],
    ['"permin";q=50;w=60,"perhr";q=1000;w=3600', '"perhr";r=0;t=50'],
    ['"peruser";q=65535;qu="content-bytes";w=10;pk=:sdfjLJUOUH==:', '"peruser";r=100;t=36000'],
    ['"basic";q=100;w=60', '"basic";r=60'],
  ])("accepts the draft's example %s with %s", (policy, limit) => {
    expect(rateLimitFieldProblem(policy, limit)).toBeUndefined();
  });

  it.each([
    ['"default";q=100;w=10', 'limit=100, remaining=50, reset=30', /RateLimit is not a Structured Field List/],
    ['100;w=10', '"default";r=50;t=30', /RateLimit-Policy item is not a policy name/],
    ['"default";w=10', '"default";r=50;t=30', /"default" has no quota q/],
    ['"default";q=100;w=10', '"default";t=30', /"default" has no available quota r/],
    ['"default";q=100;w=10', '"default";r=50;t=-1', /effective window t/],
    ['"default";q=100;w=1.5', '"default";r=50', /window w/],
  ])('refuses %s with %s', (policy, limit, problem) => {
    expect(rateLimitFieldProblem(policy, limit)).toMatch(problem);
  });
});

/** Lists of policy items with integer, string and token parameters, written as a server would. */
const listField = fc
  .array(
    fc.tuple(
      fc.oneof(fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/), fc.stringMatching(/^"[a-z \\\\"]{0,8}"$/)),
      fc.array(
        fc.tuple(
          fc.constantFrom('q', 'w', 'r', 't', 'qu', 'pk'),
          fc.oneof(
            fc.nat({ max: 1e9 }).map(String),
            fc.constant('"requests"'),
            fc.constant(':cHJldGVuZA==:'),
          ),
        ),
        { maxLength: 3 },
      ),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((items) =>
    items.map(([name, params]) => `${name}${params.map(([k, v]) => `;${k}=${v}`).join('')}`).join(', '),
  );

test.prop([listField], { seed: 38, numRuns: 200 })('reads a list as an RFC 9651 parser does', (field) => {
  let expected: unknown;
  try {
    expected = parseList(field).map(([value, params]) => [
      typeof value === 'object' && value !== null && 'toString' in value ? String(value) : value,
      Object.fromEntries(
        [...params].map(([k, v]) => [
          k,
          v instanceof ArrayBuffer ? `:${Buffer.from(v).toString('base64')}:` : String(v),
        ]),
      ),
    ]);
  } catch {
    expected = undefined;
  }
  const ours = parseItemList(field)?.map(([value, params]) => [
    value,
    Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])),
  ]);
  expect(ours).toEqual(expected);
});

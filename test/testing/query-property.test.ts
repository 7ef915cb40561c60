/**
 * The `query` property (RFC 10008) against the reference app: it holds with tokens that carry the
 * operation's scope, and is not checked (never a pass) with tokens that lack it.
 */
import { describe, expect, it } from 'vitest';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import { checkConventions, fetchTarget } from '../../src/testing/index.js';
import { referenceApp } from '../support/reference-app.js';
import { rawToken, referenceKitOptions } from '../support/reference-kit.js';

const target = () => fetchTarget(toFetchHandler(referenceApp().app));

describe('the query property against the reference app', () => {
  it('holds for QUERY /api/v1/standards with tokens that hold standards:read', async () => {
    const options = await referenceKitOptions(target(), { seed: 1 });
    const reports = await checkConventions({ ...options, only: ['query'] });
    expect(reports.map((r) => [r.id, r.passed, r.refused, r.message])).toEqual([
      ['query', true, undefined, undefined],
    ]);
  });

  it('is not checked, never passed, when the tokens lack the scope', async () => {
    const options = await referenceKitOptions(target(), { seed: 1 });
    const reports = await checkConventions({
      ...options,
      principals: { a: await rawToken('1'), b: await rawToken('2') },
      only: ['query'],
    });
    expect(reports).toHaveLength(1);
    expect(reports[0]!.passed).toBe(false);
    expect(reports[0]!.message).toBeUndefined();
    expect(reports[0]!.refused).toMatch(/^not checked: the API refused the kit's token a QUERY \(403\)/);
    expect(reports[0]!.refused).toMatch(/curl -i -X QUERY 'http:\/\/target\.test\/api\/v1\/standards'/);
  });
});

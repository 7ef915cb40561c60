import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { PATH_VERSION_SEGMENT, versionInPath } from '../../src/versioning/path-version.js';

// The model: split the path on `/`, and the first segment that is `v` and one to nine digits names
// the version (what the versioning middleware did alone before the OpenAPI document and the test kit
// shared its reading).
function modelVersion(path: string): number | undefined {
  for (const segment of path.split('/')) {
    const match = /^v([0-9]{1,9})$/.exec(segment);
    if (match) return Number(match[1]);
  }
  return undefined;
}

const segment = fc.oneof(
  fc.constantFrom(
    'v1',
    'v2',
    'v10',
    'v0',
    'V1',
    'v',
    'v1x',
    'xv1',
    'v123456789',
    'v1234567890',
    'users',
    '{id}',
  ),
  fc
    .constantFrom('v', 'x', '1', '0', '{', '}')
    .chain((c) =>
      fc.array(fc.constantFrom('v', '1', '9', 'a', '{', '}'), { maxLength: 4 }).map((cs) => c + cs.join('')),
    ),
);
const path = fc.array(segment, { minLength: 0, maxLength: 5 }).map((segments) => `/${segments.join('/')}`);

describe('the version a path names', () => {
  test.prop([path])('is the first v<N> segment, N of one to nine digits', (p) => {
    expect(versionInPath(p)).toBe(modelVersion(p));
    expect(PATH_VERSION_SEGMENT.test(p)).toBe(modelVersion(p) !== undefined);
  });

  it('reads route patterns and concrete paths alike', () => {
    expect(versionInPath('/v2/users/{id}')).toBe(2);
    expect(versionInPath('/api/v1/standards')).toBe(1);
    expect(versionInPath('/users/v1x')).toBeUndefined();
    expect(versionInPath('/v1234567890/users')).toBeUndefined();
    expect('/v1/users/v2'.replace(PATH_VERSION_SEGMENT, '/v99')).toBe('/v99/users/v2');
  });
});

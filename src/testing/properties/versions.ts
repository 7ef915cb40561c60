import fc from 'fast-check';
import { PATH_VERSION_SEGMENT } from '../../versioning/path-version.js';
import { requestArbitrary } from '../operation-requests.js';
import type { TargetRequest } from '../target.js';
import type { KitContext } from './context.js';
import type { PropertyFactory } from './property.js';

/** A version no API lists, asked for to see it refused (406, or 404 in a path). */
const UNKNOWN_VERSION = '99';

/**
 * Every listed version is served as asked or refused with 406 (RFC 9110 section 15.5.7), never
 * silently another; an unknown version, in the media type or in the path, is never served.
 */
export const versionsProperty: PropertyFactory = (ctx) => {
  if (ctx.versions.length === 0) return [];
  return [
    {
      id: 'versions',
      name: 'every version the API lists is served or refused with 406, never silently another',
      check: () =>
        ctx.run(
          fc.tuple(
            requestArbitrary(ctx.document, {
              headers: ctx.bearer(ctx.principals.a),
              ...ctx.known,
              valid: true,
              operations: (op) => op.startsWith('GET '),
            }),
            fc.constantFrom(...ctx.versions),
          ),
          async ([g, listed]) => {
            const request = ctx.fromGenerated(g);
            // Each request is asked in one listed version and in one the API does not list.
            for (const version of [listed, UNKNOWN_VERSION]) await askVersion(ctx, request, version);
            if (PATH_VERSION_SEGMENT.test(request.path)) {
              const unknown = {
                ...request,
                path: request.path.replace(PATH_VERSION_SEGMENT, `/v${UNKNOWN_VERSION}`),
              };
              const response = await ctx.send(unknown);
              if (response.status < 300)
                ctx.fail('an unknown version in the path was served', unknown, response);
            }
          },
        ),
    },
  ];
};

const accepting = (request: TargetRequest, version: string): TargetRequest => ({
  ...request,
  headers: { ...request.headers, accept: `application/vnd.api+json;version=${version}` },
});

async function askVersion(ctx: KitContext, request: TargetRequest, version: string): Promise<void> {
  const asked = accepting(request, version);
  const response = await ctx.send(asked);
  if (response.status >= 300 && response.status !== 406) return;
  // An unknown version answered 2xx by an operation whose representation depends on the version
  // asked (the listed versions answer differently, or one is refused) is another version served
  // silently; an operation that answers every version alike is not versioned.
  if (version === UNKNOWN_VERSION && response.status < 300) {
    const answers = await Promise.all(ctx.versions.map((v) => ctx.send(accepting(request, v))));
    const negotiated = answers.some((a) => a.status === 406) || new Set(answers.map((a) => a.text)).size > 1;
    if (negotiated) ctx.fail('an unknown version was served', asked, response);
  }
  if (response.status === 406) return;
  const served =
    /version=("?)(\w+)\1/.exec(response.headers['content-type'] ?? '')?.[2] ??
    response.headers['api-version'];
  if (served !== undefined && served !== version)
    ctx.fail(`version ${version} was asked and ${served} served`, asked, response);
}

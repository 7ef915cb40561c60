import { imfFixdate } from '../core/http-date.js';
import type { RouteDeprecation } from '../core/route.js';
import { booleanOption, optionError } from '../errors/option-checks.js';
import type { Inputs } from '../http/types.js';
import { isVersionNumber } from '../versioning/policy.js';
import { instantOf, structuredDate } from './dates.js';
import { absoluteUrl, successorTemplate } from './links.js';

/**
 * How a deprecated route or version announces itself: what a route's `deprecated` field says
 * (`since`, `sunset`, `link`, `successor`, `goneAfterSunset`), and for a layer the version and clock.
 */
export interface DeprecationOptions extends RouteDeprecation {
  /**
   * Only when the request's API version (chosen by `versioning`, which must run first) is this one.
   * Without it the route itself is deprecated, whatever the version.
   */
  readonly version?: number;
  /** Clock in epoch milliseconds (default `Date.now`), for the sunset check. */
  readonly now?: () => number;
}

/** The headers and sunset rule computed once from {@link DeprecationOptions}. */
export interface DeprecationNotice {
  /** `Deprecation` field value: `@<unix-seconds>` (RFC 9745 section 2.1). */
  readonly deprecation: string;
  /** `Sunset` field value, an IMF-fixdate (RFC 8594 section 3), when a sunset is set. */
  readonly sunset: string | undefined;
  /** Epoch milliseconds of the sunset, when set. */
  readonly sunsetAt: number | undefined;
  readonly goneAfterSunset: boolean;
  readonly version: number | undefined;
  /** The `Link` values for a request's route parameters (RFC 8288), or `undefined` when there are none. */
  linkFor(params: Inputs): string | undefined;
  /** The successor URL for a request's route parameters, when configured. */
  successorFor(params: Inputs): string | undefined;
}

const OWNER = 'deprecation';

/**
 * Validate {@link DeprecationOptions} and compute the header values once. Throws a `TypeError` at
 * start-up for an invalid date, a sunset before the deprecation date (RFC 9745 section 5), a link
 * that is not a bare absolute URL, or `goneAfterSunset` without a sunset.
 *
 * @example
 * deprecationNotice({ since: '2025-01-01', sunset: '2026-06-30', link: 'https://example.com/docs/v1' }).deprecation
 * // '@1735689600'
 * @see https://www.rfc-editor.org/rfc/rfc9745
 */
export function deprecationNotice(options: DeprecationOptions): DeprecationNotice {
  if (typeof options !== 'object' || options === null) throw new TypeError(`${OWNER}: options are required`);
  const since = instantOf('since', options.since, OWNER);
  const sunsetAt = options.sunset === undefined ? undefined : instantOf('sunset', options.sunset, OWNER);
  if (sunsetAt !== undefined && sunsetAt < since) {
    throw new TypeError(
      `${OWNER}: "sunset" (${new Date(sunsetAt).toISOString()}) is before "since" (${new Date(since).toISOString()}); ` +
        'a resource cannot stop being served before it is deprecated',
    );
  }
  const goneAfterSunset = booleanOption(OWNER, 'goneAfterSunset', options.goneAfterSunset, false);
  if (goneAfterSunset && sunsetAt === undefined) {
    throw new TypeError(`${OWNER}: "goneAfterSunset" needs a "sunset" date`);
  }
  if (options.version !== undefined && !isVersionNumber(options.version)) {
    throw optionError(OWNER, 'version', 'a positive integer', options.version);
  }
  const docs =
    options.link === undefined
      ? undefined
      : `<${absoluteUrl('link', options.link, OWNER)}>; rel="deprecation"; type="text/html"`;
  const successor = options.successor === undefined ? undefined : successorTemplate(options.successor, OWNER);

  const staticLink = successor === undefined ? docs : undefined;
  return {
    deprecation: structuredDate(since),
    sunset: sunsetAt === undefined ? undefined : imfFixdate(sunsetAt),
    sunsetAt,
    goneAfterSunset,
    version: options.version,
    linkFor(params) {
      if (successor === undefined) return staticLink;
      const next = `<${successor(params)}>; rel="successor-version"`;
      return docs === undefined ? next : `${docs}, ${next}`;
    },
    successorFor: (params) => successor?.(params),
  };
}

/**
 * What a declared route says of its answers' media types: its `produces`, negotiated on `Accept` (RFC
 * 9110 section 12.5.1), and the JSON:API 1.1 profiles its JSON:API answers apply ("Profiles").
 */
import { mediaTypeNegotiator } from '../http/media-types.js';

/** A route's response media types, checked (a `fail` names the route) and compiled. */
export interface ResponseTypes {
  /** The route's own negotiator, when it declares `produces`. */
  readonly negotiate: ((accept: string | undefined) => string | undefined) | undefined;
  /** Its `produces`, lower-cased. */
  readonly produces: readonly string[] | undefined;
  readonly profiles: readonly string[] | undefined;
}

export function responseTypes(
  definition: { readonly produces?: readonly string[]; readonly profiles?: readonly string[] },
  fail: (what: string) => never,
): ResponseTypes {
  const { produces, profiles } = definition;
  let negotiate: ResponseTypes['negotiate'];
  try {
    negotiate = produces === undefined ? undefined : mediaTypeNegotiator(produces);
  } catch (error) {
    fail((error as Error).message);
  }
  return {
    negotiate,
    produces: produces === undefined ? undefined : produces.map((type) => type.toLowerCase()),
    profiles: profiles === undefined ? undefined : checkProfiles(profiles, fail),
  };
}

/**
 * Profiles are absolute URIs, listed space-separated in a quoted string by the `profile` media type
 * parameter (JSON:API 1.1 "Media Type Parameters").
 */
function checkProfiles(profiles: unknown, fail: (what: string) => never): readonly string[] {
  if (!Array.isArray(profiles) || profiles.length === 0) fail('profiles must list profile URIs');
  for (const uri of profiles as unknown[]) {
    if (typeof uri !== 'string' || !URL.canParse(uri) || /[\s"\\]/.test(uri))
      fail(`profiles must be absolute URIs without spaces or quotes, got ${JSON.stringify(uri)}`);
  }
  return [...(profiles as string[])];
}

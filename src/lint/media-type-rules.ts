/**
 * The linter's rules on what a document says of two drafts and a media type: the RateLimit fields as
 * draft-ietf-httpapi-ratelimit-headers-11 names them (`RateLimit`, `RateLimit-Policy`, never an older
 * draft's or the `X-` fields), and the JSON:API 1.1 media type parameters where the document declares
 * them ("Media Type Parameters", "Profiles"): only `ext` and `profile` (here also `version`, which the
 * versioning primitive reads), each a space-separated list of absolute URIs, and profiles named in
 * `x-jsonapi-profiles` only on an operation that answers JSON:API.
 */
import { mediaTypeParameters } from '../core/media-type-parameters.js';
import { JSON_API_PARAMETERS } from '../http/jsonapi-parameters.js';
import { essence, JSON_API } from '../http/media-types.js';
import type { OpenApiOperation, OpenApiResponse } from '../openapi/types.js';

/** Field names of earlier RateLimit drafts and of the `X-` convention they replaced. */
const OLDER_RATELIMIT_FIELDS = /^(?:x-)?rate-?limit-(?:limit|remaining|reset|used)$/i;

/**
 * What the RateLimit fields of an operation's responses say against draft-11 (section 3 and 4):
 * the older fields named, and `RateLimit` documented without `RateLimit-Policy` or the other way.
 */
export function rateLimitFieldProblems(responses: ReadonlyMap<string, OpenApiResponse>): string[] {
  const problems = new Set<string>();
  for (const [status, response] of responses) {
    const names = Object.keys(response.headers ?? {});
    for (const name of names.filter((n) => OLDER_RATELIMIT_FIELDS.test(n)))
      problems.add(
        `${status} documents ${name}, a field of an older draft: draft-ietf-httpapi-ratelimit-headers-11 names RateLimit and RateLimit-Policy.`,
      );
    const lower = new Set(names.map((n) => n.toLowerCase()));
    if (lower.has('ratelimit') !== lower.has('ratelimit-policy'))
      problems.add(
        `${status} documents ${lower.has('ratelimit') ? 'RateLimit without RateLimit-Policy' : 'RateLimit-Policy without RateLimit'}: a RateLimit item names the policy it reports (draft-ietf-httpapi-ratelimit-headers-11 section 4).`,
      );
  }
  return [...problems];
}

/** An absolute URI (RFC 3986 section 4.3) without white space: what `ext` and `profile` list. */
const ABSOLUTE_URI = /^[a-z][a-z0-9+.-]*:[^\s"]+$/i;

/** What is wrong with one `ext` or `profile` value: a URI that is not absolute, or none at all. */
function uriListProblem(name: string, value: string): string | undefined {
  const uris = value.split(' ').filter((uri) => uri !== '');
  const bad = uris.find((uri) => !ABSOLUTE_URI.test(uri));
  if (uris.length === 0) return `${name} lists no URI`;
  return bad === undefined ? undefined : `${name} names "${bad}", not an absolute URI`;
}

/** Every media type key of an operation's request body and responses, with where it is. */
function contentKeys(
  requestBody: { content?: Record<string, unknown> } | undefined,
  responses: ReadonlyMap<string, OpenApiResponse>,
): [where: string, key: string][] {
  return [
    ...Object.keys(requestBody?.content ?? {}).map((key) => ['the request body', key] as [string, string]),
    ...[...responses].flatMap(([status, response]) =>
      Object.keys(response.content ?? {}).map((key) => [status, key] as [string, string]),
    ),
  ];
}

/**
 * What an operation's JSON:API media types and `x-jsonapi-profiles` say against JSON:API 1.1: a
 * JSON:API media type key with a parameter other than `ext` and `profile` (and `version`), an `ext`
 * or `profile` that is not a list of absolute URIs, profiles that are not such URIs, or profiles on
 * an operation none of whose responses is JSON:API.
 */
export function jsonApiParameterProblems(
  operation: OpenApiOperation,
  requestBody: { content?: Record<string, unknown> } | undefined,
  responses: ReadonlyMap<string, OpenApiResponse>,
): string[] {
  const problems: string[] = [];
  const keys = contentKeys(requestBody, responses);
  for (const [where, key] of keys) {
    if (essence(key) !== JSON_API || !key.includes(';')) continue;
    const params = mediaTypeParameters(key);
    if (params === undefined) {
      problems.push(`${where} names "${key}", whose parameters are malformed (RFC 9110 section 5.6.6).`);
      continue;
    }
    for (const [name, value] of params) {
      if (!JSON_API_PARAMETERS.has(name)) {
        problems.push(`${where} names ${JSON_API} with "${name}": JSON:API 1.1 takes only ext and profile.`);
        continue;
      }
      const problem = name === 'version' ? undefined : uriListProblem(name, value);
      if (problem !== undefined)
        problems.push(`${where}: ${problem} (JSON:API 1.1 "Media Type Parameters").`);
    }
  }
  const profiles = (operation as { 'x-jsonapi-profiles'?: unknown })['x-jsonapi-profiles'];
  if (profiles === undefined) return problems;
  if (!Array.isArray(profiles) || profiles.some((p) => typeof p !== 'string')) {
    problems.push('x-jsonapi-profiles must list profile URIs (strings).');
    return problems;
  }
  for (const profile of profiles as string[]) {
    if (!ABSOLUTE_URI.test(profile))
      problems.push(`x-jsonapi-profiles names "${profile}", not an absolute URI (JSON:API 1.1 "Profiles").`);
  }
  const answersJsonApi = [...responses].some(
    ([status, response]) =>
      /^2/.test(status) && Object.keys(response.content ?? {}).some((key) => essence(key) === JSON_API),
  );
  if (!answersJsonApi)
    problems.push('x-jsonapi-profiles names profiles, but no success response of the operation is JSON:API.');
  return problems;
}

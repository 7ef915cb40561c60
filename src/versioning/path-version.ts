/**
 * The version a path names: its first `v<N>` segment (`/v2/users/{id}` → 2, `/api/v1/standards` → 1),
 * N a positive number of at most nine digits. The one reading for the versioning middleware, the
 * OpenAPI document (which version a deprecation applies to) and the test kit (the versions a
 * document serves), so that all three agree on which paths are versioned.
 */

/** A `/v<N>` segment; its capture is N. Not global: `exec` and `replace` find the first. */
export const PATH_VERSION_SEGMENT = /\/v(\d{1,9})(?=\/|$)/;

/** The version the path (or route pattern) names, or `undefined`. */
export function versionInPath(path: string): number | undefined {
  const digits = PATH_VERSION_SEGMENT.exec(path)?.[1];
  return digits === undefined ? undefined : Number(digits);
}

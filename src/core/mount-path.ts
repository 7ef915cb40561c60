import type { ApiResponse } from '../http/types.js';

/**
 * An app-relative reference (`/orders/7`) as seen from outside the mount point (`/api/orders/7`).
 * Only origin-relative references are moved: absolute URLs, network-path references (`//host`) and
 * relative ones are left as they are (RFC 3986 section 4.2).
 */
export function mountedReference(reference: string, mountPath: string): string {
  return reference.charCodeAt(0) === 0x2f && reference.charCodeAt(1) !== 0x2f
    ? `${mountPath}${reference}`
    : reference;
}

/**
 * Moves a handler's response under the app's mount path: `Location` (RFC 9110 section 10.2.2) and
 * every link of a JSON:API document (JSON:API 1.0 "Links": a `links` member's string values and
 * link objects' `href`). Runs right after the handler, so every middleware (ETag hashing, idempotency
 * storage) sees the links the client gets. A body already serialized (`raw`) is left alone.
 */
export function underMountPath(response: ApiResponse, mountPath: string): void {
  const { headers } = response;
  const location = headers.location;
  if (location !== undefined) headers.location = mountedReference(location, mountPath);
  if (response.json !== undefined && response.raw === undefined) moveLinks(response.json, mountPath, 0);
}

/** JSON:API documents nest a handful of levels; the walk stops well past any real one. */
const MAX_DEPTH = 32;

function moveLinks(value: unknown, mountPath: string, depth: number): void {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const item of value) moveLinks(item, mountPath, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    const member = record[name];
    if (name === 'links' && typeof member === 'object' && member !== null && !Array.isArray(member)) {
      moveLinkObject(member as Record<string, unknown>, mountPath);
    } else moveLinks(member, mountPath, depth + 1);
  }
}

function moveLinkObject(links: Record<string, unknown>, mountPath: string): void {
  for (const name of Object.keys(links)) {
    const link = links[name];
    if (typeof link === 'string') links[name] = mountedReference(link, mountPath);
    else if (
      typeof link === 'object' &&
      link !== null &&
      typeof (link as { href?: unknown }).href === 'string'
    ) {
      const object = link as { href: string };
      links[name] = { ...object, href: mountedReference(object.href, mountPath) };
    }
  }
}

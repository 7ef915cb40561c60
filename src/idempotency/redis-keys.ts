import { randomUUID } from 'node:crypto';

/**
 * Where the Redis idempotency store keeps an owner's records (docs/idempotency.md, "Redis").
 *
 * An owner's records and usage are one hash, `<prefix>{<owner>}`: its key is a Redis Cluster hash
 * tag (the part between the first `{` and the next `}`), so each script touches one key in one
 * slot, and owners spread over the cluster's masters. A record is the field `:<key>`; the usage is
 * the fields `n`, `b` and `e` (redis-scripts.ts).
 */
export interface OwnerKeys {
  /** The owner's hash. */
  readonly owner: string;
  /** The record's field in it. */
  readonly field: string;
}

/**
 * The owner as a hash tag: `%`, `{` and `}` percent-encoded so no owner ends the tag early or
 * names another owner's keys, and the empty owner as a lone `%` so the tag is never empty (an
 * empty tag would hash each whole key on its own).
 */
function ownerTag(owner: string): string {
  if (owner === '') return '%';
  return /[%{}]/.test(owner)
    ? owner.replace(/[%{}]/g, (c) => (c === '%' ? '%25' : c === '{' ? '%7B' : '%7D'))
    : owner;
}

/** Where a script on `key` of `owner` reads and writes. */
export function ownerKeys(prefix: string, owner: string, key: string): OwnerKeys {
  return { owner: `${prefix}{${ownerTag(owner)}}`, field: `:${key}` };
}

/** Length of a UUID, the random part of a token. */
const UUID_LENGTH = 36;

/**
 * A fencing token that also names the record's owner: `renew`, `complete` and `release` receive
 * only the key and the token, and find the owner's slot from it.
 */
export function ownerToken(owner: string): string {
  return randomUUID() + owner;
}

/** The owner a token names, or undefined for a string no claim of this store issued. */
export function ownerOfToken(token: string): string | undefined {
  return token.length >= UUID_LENGTH ? token.slice(UUID_LENGTH) : undefined;
}

/** A key prefix holding a hash tag would put every owner in one slot. */
export function checkPrefix(store: string, prefix: unknown): string {
  if (typeof prefix !== 'string' || /[{}]/.test(prefix)) {
    throw new TypeError(
      `${store}: prefix must be a string without '{' or '}' (the store puts a hash tag per owner), got ${String(prefix)}`,
    );
  }
  return prefix;
}

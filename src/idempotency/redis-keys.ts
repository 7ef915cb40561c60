import { randomUUID } from 'node:crypto';
import { hashTag } from '../stores/redis-hash-tag.js';

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

/** Where a script on `key` of `owner` reads and writes. */
export function ownerKeys(prefix: string, owner: string, key: string): OwnerKeys {
  return { owner: `${prefix}{${hashTag(owner)}}`, field: `:${key}` };
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

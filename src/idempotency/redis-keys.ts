import { randomUUID } from 'node:crypto';

/**
 * Where the Redis idempotency store keeps an owner's records (docs/idempotency.md, "Redis").
 *
 * Every key of one owner carries the same Redis Cluster hash tag (the part between the first `{`
 * and the next `}`), so the owner's records and the hash of their usage share one slot: each
 * script touches one slot, and owners spread over the cluster's masters.
 *
 * - `<prefix>{<owner>}:<key>`: a record (a string, redis-scripts.ts)
 * - `<prefix>{<owner>}#usage`: the owner's record count and bytes, and an entry per record
 */
export interface OwnerKeys {
  readonly record: string;
  readonly usage: string;
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

/** The keys a script on `key` of `owner` touches, all in one slot. */
export function ownerKeys(prefix: string, owner: string, key: string): OwnerKeys {
  const base = `${prefix}{${ownerTag(owner)}}`;
  // The scripts find a record's entry in the usage as the record key after `base` (':<key>').
  return { record: `${base}:${key}`, usage: `${base}#usage` };
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

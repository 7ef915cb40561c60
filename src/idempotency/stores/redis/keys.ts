import { randomUUID } from 'node:crypto';
import { hashTag } from '../../../stores/redis-hash-tag.js';

/**
 * Where the Redis idempotency store keeps an owner's records (docs/idempotency.md, "Redis").
 *
 * An owner's records and usage are one hash, `<prefix>{<owner>}`: its key is a Redis Cluster hash
 * tag (the part between the first `{` and the next `}`), so each script touches one key in one
 * slot, and owners spread over the cluster's masters. A record is the field `:<key>`; the usage is
 * the fields `n`, `b` and `e` (scripts.ts).
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
/** In an issued token, after the UUID: the replicas online at the claim, or this when not counted. */
const NOT_COUNTED = '-';

/**
 * The fencing token a claim stores in its record: a UUID, then the owner, so that `renew`,
 * `complete` and `release`, which receive only the key and the token, find the owner's slot.
 */
export function recordToken(owner: string): string {
  return randomUUID() + owner;
}

/**
 * The token a claim hands out: the record's, with one character after the UUID saying how many
 * replicas its master had online at the claim (0 to 9, capped; `-` when the store does not count
 * them), which tells the completion whether a `WAIT` could be answered at all.
 */
export function issuedToken(stored: string, onlineReplicas: number | undefined): string {
  const count = onlineReplicas === undefined ? NOT_COUNTED : String(Math.min(9, onlineReplicas));
  return stored.slice(0, UUID_LENGTH) + count + stored.slice(UUID_LENGTH);
}

/** What an issued token says, or undefined for a string no claim of this store issued. */
export interface IssuedToken {
  /** The token as the record stores it. */
  readonly stored: string;
  readonly owner: string;
  /** Replicas online at the claim; undefined when not counted. */
  readonly onlineReplicas: number | undefined;
}

export function readToken(token: string): IssuedToken | undefined {
  if (token.length <= UUID_LENGTH) return undefined;
  const count = token[UUID_LENGTH]!;
  const owner = token.slice(UUID_LENGTH + 1);
  return {
    stored: token.slice(0, UUID_LENGTH) + owner,
    owner,
    onlineReplicas: count === NOT_COUNTED ? undefined : Number(count),
  };
}

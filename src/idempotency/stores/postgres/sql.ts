import { createHash } from 'node:crypto';
import {
  BRIEF_BYTES,
  briefResponse,
  RECORD_OVERHEAD_BYTES,
  type ResolvedStoreLimits,
  recordBytes,
} from '../limits.js';
import type { StoredResponse } from '../store.js';
import type { Queryable, QueryResult } from './types.js';

// The PostgreSQL idempotency store's statements: their texts, names and result rows.

/** The store's statements on `table`, named for preparation ({@link statements}). */
export function storeStatements(table: string) {
  return statements({
    claim: claimText(table, false),
    claimLocked: claimText(table, true),
    renew: `UPDATE ${table} SET expires_at = $3::bigint + $4::bigint
      WHERE scope_key = $1 AND token = $2 AND state = 'in-progress' AND expires_at > $3::bigint`,
    complete: completionText(table, { leased: true }),
    // The record was inserted by this very transaction, which nobody else can take over: no lease
    // to check, however long the handler ran.
    completeOwn: completionText(table, { leased: false }),
    // The completion sent with the COMMIT behind it (a pipelining client): finding no row, it must
    // not let that COMMIT land, so it divides by the count of rows it updated. Division by zero
    // aborts the transaction, and a COMMIT of an aborted transaction rolls it back.
    completeOwnOrAbort: completionText(table, { leased: false, orAbort: true }),
    // The owner's live records, for when they leave room (`untilOwnerRoom`), read on a refusal only.
    ownerRecords: `SELECT expires_at::text AS expires_at, bytes FROM ${table}
      WHERE owner = $1 AND expires_at > $2::bigint`,
    release: `DELETE FROM ${table}
      WHERE scope_key = $1 AND token = $2 AND state = 'in-progress' AND expires_at > $3::bigint`,
    deleteExpired: `DELETE FROM ${table} WHERE expires_at <= $1::bigint`,
    // Taken before a completion, in the same transaction: see `OWNER_LOCK_SALT`.
    lockOwner: `SELECT pg_advisory_xact_lock(hashtextextended(owner, ${OWNER_LOCK_SALT}))
      FROM ${table} WHERE scope_key = $1 AND token = $2`,
  });
}

/**
 * The claim statement: the live record under the key, the owner's live usage, and the insert (or
 * the takeover of an expired row) when there is no live record and the owner's quota has room; one
 * round trip. `locked` (a claim inside the handler's transaction) first takes a transaction-scoped
 * advisory lock on the key, so a concurrent claim of the same key answers at once instead of
 * waiting on the uncommitted row.
 */
function claimText(table: string, locked: boolean): string {
  // Salted, so that the key's lock is not the one of anything else hashed with the default salt 0
  // (an application's own advisory locks, such as a migration runner's).
  const lock = locked
    ? `locked AS (SELECT pg_try_advisory_xact_lock(hashtextextended($1, ${KEY_LOCK_SALT})) AS got), `
    : '';
  return `WITH ${lock}existing AS (
        SELECT state, fingerprint, status, headers::text AS headers, body FROM ${table}
        WHERE scope_key = $1 AND expires_at > $4::bigint
      ), usage AS (
        SELECT count(*) AS entries, coalesce(sum(bytes), 0) AS bytes
        FROM ${table} WHERE owner = $6 AND expires_at > $4::bigint
      ), inserted AS (
        INSERT INTO ${table} AS r (scope_key, fingerprint, token, state, expires_at, owner, bytes)
        SELECT $1, $2, $3, 'in-progress', $4::bigint + $5::bigint, $6, $7::int FROM usage${locked ? ', locked' : ''}
        WHERE NOT EXISTS (SELECT 1 FROM existing)${locked ? ' AND locked.got' : ''}
          AND usage.entries < $8::bigint AND usage.bytes + $7::int <= $9::bigint
        ON CONFLICT (scope_key) DO UPDATE
          SET fingerprint = excluded.fingerprint, token = excluded.token, state = 'in-progress',
              expires_at = excluded.expires_at, status = NULL, headers = NULL, body = NULL,
              owner = excluded.owner, bytes = excluded.bytes
          WHERE r.expires_at <= $4::bigint
        RETURNING r.token
      )
      SELECT (SELECT token FROM inserted) AS token, ${locked ? 'l.got' : 'NULL::boolean'} AS locked,
        e.state, e.fingerprint, e.status, e.headers, e.body,
        u.entries::int AS entries, u.bytes::bigint::text AS bytes
      FROM usage u ${locked ? 'CROSS JOIN locked l ' : ''}LEFT JOIN existing e ON true`;
}

/**
 * The completion: the whole response, or its brief when the owner's bytes would then no longer leave
 * each record it may yet claim the room of a claim like this one (`keepsWhole`, read from the owner's
 * live records in the same statement). Parameters: key, token, now, retention, status, then the
 * whole response's headers, body and the bytes it adds past the claim's brief room, then the brief's
 * headers and bytes, then the owner's budgets. `leased`: only while the lease runs (a record claimed
 * outside the handler's transaction); `orAbort`: see `completeOwnOrAbort`.
 */
function completionText(
  table: string,
  how: { readonly leased: boolean; readonly orAbort?: boolean },
): string {
  const mine = `scope_key = $1 AND token = $2 AND state = 'in-progress'${how.leased ? ' AND expires_at > $3::bigint' : ''}`;
  const update = `UPDATE ${table} AS r
      SET state = 'completed', expires_at = $3::bigint + $4::bigint, status = $5,
        headers = CASE WHEN k.whole THEN $6::jsonb ELSE $9::jsonb END,
        body = CASE WHEN k.whole THEN $7::bytea ELSE ''::bytea END,
        bytes = r.bytes - ${BRIEF_BYTES} + CASE WHEN k.whole THEN $8::int ELSE $10::int END
      FROM kept k WHERE ${mine}`;
  return `WITH target AS (
        SELECT owner, bytes FROM ${table} WHERE ${mine}
      ), usage AS (
        SELECT count(*) AS entries, coalesce(sum(bytes), 0) AS bytes FROM ${table}
        WHERE owner = (SELECT owner FROM target) AND (expires_at > $3::bigint OR scope_key = $1)
      ), kept AS (
        SELECT u.bytes - t.bytes + (t.bytes - ${BRIEF_BYTES} + $8::int)
          + greatest(0, $11::bigint - u.entries) * t.bytes <= $12::bigint AS whole
        FROM usage u CROSS JOIN target t
      )${
        how.orAbort
          ? `, done AS (${update} RETURNING 1)
      SELECT 1 / count(*)::int AS completed FROM done`
          : `
      ${update}`
      }`;
}

/** The bytes a response adds to a record's count: its status, headers and body. */
const responseBytes = (response: StoredResponse) => recordBytes('', '', response) - RECORD_OVERHEAD_BYTES;

/**
 * The parameters of a completion statement ({@link completionText}): the whole response and its
 * brief, of which the statement keeps the one the owner's budget has room for.
 */
export function completionParameters(completion: {
  readonly key: string;
  readonly token: string;
  readonly at: number;
  readonly retentionMs: number;
  readonly response: StoredResponse;
  readonly limits: ResolvedStoreLimits;
}): unknown[] {
  const { response, limits } = completion;
  const brief = briefResponse(response);
  return [
    completion.key,
    completion.token,
    completion.at,
    Math.ceil(completion.retentionMs),
    response.status,
    JSON.stringify(response.headers),
    Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength),
    responseBytes(response),
    JSON.stringify(brief.headers),
    responseBytes(brief),
    limits.ownerMaxEntries,
    limits.ownerMaxBytes,
  ];
}

/** `hashtextextended`'s second argument (a salt) for the key's advisory lock: "idem" in ASCII. */
const KEY_LOCK_SALT = 0x6964656d;
/**
 * The salt of the owner's completion lock ("ownr"): an owner named like a key must not take that
 * key's lock. The lock serializes one owner's completions. Each decides whether its whole answer
 * still fits the owner's budget (`keepsWhole`) from the owner's records, and under READ COMMITTED
 * a statement sees only what was committed before it began: two completions side by side would
 * each miss the other's answer, both keep theirs whole, and together take room the owner's later
 * claims were promised. Taken in a statement of its own, the completion's snapshot is taken once
 * the lock is held, so after the previous completion of that owner committed.
 */
const OWNER_LOCK_SALT = 0x6f776e72;

export type ClaimRow = {
  readonly token: string | null;
  /** Whether the claim got the key's advisory lock; null when it did not ask for it. */
  readonly locked: boolean | null;
  readonly state: string | null;
  readonly fingerprint: string | null;
  readonly entries: number;
  readonly bytes: string;
  readonly status: number | null;
  readonly headers: string | null;
  readonly body: Buffer | null;
};

/** The statements of a store on one table. */
export type StoreStatements = ReturnType<typeof storeStatements>;

/** Runs `statement` on `db`, prepared under its name or not, as the store's options say. */
export type RunStatement = <Row extends Record<string, unknown> = Record<string, unknown>>(
  db: Queryable,
  statement: Statement,
  values: unknown[],
) => Promise<QueryResult<Row>>;

/** A statement of the store: its text, and the name it is prepared under. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/**
 * Names each statement after a hash of its text: the same name for the same text in every store on
 * one pool (`pg` refuses one name for two texts), and short enough for PostgreSQL's 63-byte
 * identifiers whatever the table's name.
 */
function statements<K extends string>(texts: Record<K, string>): Record<K, Statement> {
  const named = {} as Record<K, Statement>;
  for (const [key, text] of Object.entries<string>(texts)) {
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 24);
    named[key as K] = { name: `rc_idempotency_${digest}`, text };
  }
  return named;
}

/** Whether `error` is PostgreSQL's division by zero (SQLSTATE 22012): see `completeOwnOrAbort`. */
export function isDivisionByZero(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '22012';
}

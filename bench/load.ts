/**
 * How the bench's load generator sends a case (bench/cases.ts): autocannon, with each request built
 * once and a fresh `Idempotency-Key` written into its bytes per send. Apart from the cases so that
 * the floors, which import the cases and are bundled for Bun and Deno, do not bundle autocannon.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import type { Case, Fixture } from './cases.js';

/** One bench process's keys: a prefix of its own, then a count, so no two sends share a key. */
const KEY_PREFIX = `${randomUUID().slice(0, 8)}-`;
const KEY_DIGITS = 12;
/** The key as the request is built; each send writes the next count over its digits. */
const KEY_PLACEHOLDER = KEY_PREFIX + '0'.repeat(KEY_DIGITS);
let keysSent = 0;

interface LoadRequest {
  readonly method: Case['method'];
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/**
 * Makes autocannon send a fresh `Idempotency-Key` each time it sends a request built with
 * {@link KEY_PLACEHOLDER}, for one copy of the request's bytes: it builds each request once and
 * sends those bytes, which its client reads through `getRequestBuffer`; that read is wrapped here.
 * Its own `idReplacement` builds the whole request again for each send, which cost the load
 * generator 22 us of CPU per keyed write, half of what a server spends on one. Requests without
 * the placeholder are sent as they are built.
 */
const sendFreshKeys = (() => {
  let installed = false;
  return () => {
    if (installed) return;
    installed = true;
    const client = createRequire(import.meta.url)('autocannon/lib/httpClient.js') as {
      prototype: { getRequestBuffer(this: unknown): Buffer };
    };
    const built = client.prototype.getRequestBuffer;
    const keyAt = new WeakMap<Buffer, number>();
    client.prototype.getRequestBuffer = function freshKeyBuffer() {
      const bytes = built.call(this);
      let at = keyAt.get(bytes);
      if (at === undefined) {
        at = bytes.indexOf(KEY_PLACEHOLDER, 0, 'latin1');
        // One place to write: a second copy (in the path or the body) would leave the header's key unchanged.
        if (at !== bytes.lastIndexOf(KEY_PLACEHOLDER, undefined, 'latin1'))
          throw new Error('bench: a request holds the Idempotency-Key placeholder twice');
        keyAt.set(bytes, at);
      }
      if (at === -1) return bytes;
      const fresh = Buffer.from(bytes);
      keysSent++;
      fresh.write(String(keysSent).padStart(KEY_DIGITS, '0'), at + KEY_PREFIX.length, 'latin1');
      return fresh;
    };
  };
})();

/**
 * Throws unless every answer of a keyed case's run had a fresh key: `keysBefore` is
 * {@link freshKeysSent} before the run. Were autocannon to stop reading its requests through
 * `getRequestBuffer`, its sends would repeat one key and be answered as replays, 201 all the same.
 */
export function checkFreshKeys(c: Case, keysBefore: number, answered: number): void {
  if (c.freshIdempotencyKey && keysSent - keysBefore < answered)
    throw new Error(
      `${c.name}: ${answered} answers but ${keysSent - keysBefore} fresh Idempotency-Keys sent`,
    );
}

/** Fresh `Idempotency-Key`s sent so far by this process. */
export const freshKeysSent = (): number => keysSent;

/**
 * The requests of a case as the load generator sends them: one per writer where the case rotates
 * writers (else one), taken in turn by each connection, and a fresh `Idempotency-Key` on each send
 * where the case asks for one ({@link sendFreshKeys}). All built once: a request built for each
 * send (autocannon's `setupRequest` or `idReplacement`) cost the load generator as much CPU
 * per write as a fast server spends on one, so the writes' rates were the load generator's
 * (docs/benchmarks.md).
 */
function loadRequests(c: Case, f: Fixture): LoadRequest[] {
  if (c.freshIdempotencyKey) sendFreshKeys();
  const fixed = c.headers(f);
  const writers: readonly (string | undefined)[] = c.rotatesWriters ? f.writers : [undefined];
  return writers.map((token) => ({
    method: c.method,
    path: c.path(f),
    headers: {
      ...fixed,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(c.freshIdempotencyKey ? { 'idempotency-key': KEY_PLACEHOLDER } : {}),
    },
    ...(c.body === undefined ? {} : { body: c.body }),
  }));
}

/** autocannon's result for a case's load, with how many answers had each status. */
export interface CaseLoad {
  readonly result: autocannon.Result;
  readonly statuses: Readonly<Record<string, number>>;
}

/**
 * Sends a case's load ({@link loadRequests}) with autocannon, for the bench and the instruction
 * counts alike, and checks that a keyed case sent a fresh key with every request answered.
 */
export async function loadCase(
  c: Case,
  f: Fixture,
  options: Omit<autocannon.Options, 'requests'>,
): Promise<CaseLoad> {
  const keysBefore = freshKeysSent();
  const result = await autocannon({ ...options, requests: loadRequests(c, f) });
  checkFreshKeys(c, keysBefore, result.requests.total);
  const counts =
    (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  const statuses: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(counts)) statuses[status] = count;
  return { result, statuses };
}

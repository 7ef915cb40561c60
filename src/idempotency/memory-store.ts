import { type ClaimOutcome, type IdempotencyStore, newToken, type StoredResponse } from './store.js';

export interface MemoryStoreOptions {
  /** Most records held at once (default 10 000). */
  readonly maxEntries?: number;
  /** Clock in milliseconds (default `Date.now`); tests pass a fake one. */
  readonly now?: () => number;
}

interface Entry {
  readonly fingerprint: string;
  readonly token: string;
  expiresAt: number;
  response: StoredResponse | undefined;
}

/**
 * An in-process {@link IdempotencyStore}: the embedded default, for a single app instance.
 *
 * Bounded: when full it first drops expired records, then the oldest completed ones (losing
 * their replay protection, the price of a bound); when every record is a live in-progress claim it
 * refuses new claims (the middleware answers 503) rather than drop a claim in flight.
 *
 * @example
 * idempotency({ store: memoryStore({ maxEntries: 50_000 }) });
 */
export function memoryStore(options: MemoryStoreOptions = {}): IdempotencyStore {
  const maxEntries = options.maxEntries ?? 10_000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new TypeError(
      `memoryStore: maxEntries must be a positive integer, got ${String(options.maxEntries)}`,
    );
  }
  const now = options.now ?? Date.now;
  // Insertion order is the eviction order: an entry is re-inserted whenever it is rewritten.
  const entries = new Map<string, Entry>();

  const live = (key: string, at: number): Entry | undefined => {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > at) return entry;
    entries.delete(key);
    return undefined;
  };
  const owned = (key: string, token: string, at: number): Entry | undefined => {
    const entry = live(key, at);
    return entry !== undefined && entry.response === undefined && entry.token === token ? entry : undefined;
  };
  const makeRoom = (at: number): void => {
    for (const [key, entry] of entries) if (entry.expiresAt <= at) entries.delete(key);
    if (entries.size < maxEntries) return;
    for (const [key, entry] of entries) {
      if (entry.response !== undefined) {
        entries.delete(key);
        return;
      }
    }
    throw new Error('memoryStore is full of in-progress claims');
  };

  return {
    async claim(key, fingerprint, leaseMs): Promise<ClaimOutcome> {
      const at = now();
      const entry = live(key, at);
      if (entry !== undefined) {
        if (entry.fingerprint !== fingerprint) return { kind: 'mismatch' };
        if (entry.response !== undefined) return { kind: 'completed', response: copy(entry.response) };
        return { kind: 'in-progress' };
      }
      if (entries.size >= maxEntries) makeRoom(at);
      const token = newToken();
      entries.set(key, { fingerprint, token, expiresAt: at + leaseMs, response: undefined });
      return { kind: 'claimed', token };
    },
    async renew(key, token, leaseMs) {
      const at = now();
      const entry = owned(key, token, at);
      if (entry === undefined) return false;
      entry.expiresAt = at + leaseMs;
      return true;
    },
    async complete(key, token, response, retentionMs) {
      const at = now();
      const entry = owned(key, token, at);
      if (entry === undefined) return false;
      entries.delete(key);
      entries.set(key, { ...entry, expiresAt: at + retentionMs, response: copy(response) });
      return true;
    },
    async release(key, token) {
      if (owned(key, token, now()) === undefined) return false;
      entries.delete(key);
      return true;
    },
  };
}

function copy(response: StoredResponse): StoredResponse {
  return { status: response.status, headers: { ...response.headers }, body: response.body.slice() };
}

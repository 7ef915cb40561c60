import { functionOption } from '../../../errors/option-checks.js';
import { ShardedMap } from '../../../stores/sharded-map.js';
import {
  ANONYMOUS_OWNER,
  briefResponse,
  claimBytes,
  keepsWhole,
  RECORD_OVERHEAD_BYTES,
  readStoreLimits,
  recordBytes,
  untilOwnerRoom,
} from '../limits.js';
import type { ClaimOutcome } from '../store.js';
import {
  DEFAULT_MEMORY_MAX_BYTES,
  DEFAULT_MEMORY_MAX_ENTRIES,
  type MemoryIdempotencyStore,
  type MemoryIdempotencyStoreOptions,
  withOwnerShares,
} from './budgets.js';
import { ExpiryQueue } from './expiry-queue.js';
import { Owner, Pending } from './owner.js';
import {
  decodeResponse,
  encodeFingerprint,
  encodeRecord,
  recordExpiry,
  recordMatches,
  recordOwner,
} from './record-codec.js';

export {
  DEFAULT_MEMORY_MAX_BYTES,
  DEFAULT_MEMORY_MAX_ENTRIES,
  type MemoryIdempotencyStore,
  type MemoryIdempotencyStoreOptions,
} from './budgets.js';

/** Expired records reclaimed per claim when the store has room (when full: all of them). */
const SWEEP_PER_CLAIM = 8;
/** Distinct lease and retention durations given their own expiry queue. */
const MAX_QUEUES = 16;

type Stored = Pending | string;

/**
 * An in-process {@link IdempotencyStore}: the embedded default, for a single app instance.
 *
 * Bounded by entries and bytes, in total and per owner (defaults: 100 000 records, 100 MiB, and per
 * owner a hundredth of each: 1 000 records, 1 MiB, so that fewer than 100 owners cannot fill it
 * for another). A claim counts its key, fingerprint and room for a brief record until it
 * completes; the response is then kept whole when the owner's budget has room for it, else brief
 * (status, `Location`, validators), so a retry is never run again. An unexpired record is never
 * dropped: a claim that does not fit is refused (`full`; the middleware answers 429 for the
 * owner's quota, 503 for the whole store) after every expired record has been reclaimed. Expiry is
 * amortized O(1): one FIFO queue per lease or retention duration, consumed from its oldest entry.
 * A completed record is one Latin-1 string (about 300 bytes of heap for a 120-byte body, key and
 * headers included, with keys made by `scopeKey`, which are flat strings; the store keeps a key as
 * it is given).
 *
 * @example
 * idempotency({ store: memoryIdempotencyStore({ maxEntries: 50_000, ownerMaxEntries: 500 }) });
 */
export function memoryIdempotencyStore(options: MemoryIdempotencyStoreOptions = {}): MemoryIdempotencyStore {
  const limits = readStoreLimits('memoryIdempotencyStore', withOwnerShares(options), {
    maxEntries: DEFAULT_MEMORY_MAX_ENTRIES,
    maxBytes: DEFAULT_MEMORY_MAX_BYTES,
  });
  const clock = functionOption('memoryIdempotencyStore', 'now', options.now ?? Date.now);
  // Whole milliseconds: a record's expiry is stored as an integer and compared with its queue entry.
  const now = () => Math.floor(clock());
  const after = (at: number, durationMs: number) => at + Math.ceil(durationMs);

  // Many small tables, not one large one: see ShardedMap for what one large table costs on Bun.
  const records = new ShardedMap<Stored>();
  const queues = new Map<number, ExpiryQueue>();
  const owners = new Map<string, Owner>();
  const ownersById = new Map<number, Owner>();
  let nextOwnerId = 1;
  let totalBytes = 0;
  // Fencing tokens need only be unique within this store, which never gives one out twice.
  let lastToken = 0;

  const expiryOf = (stored: Stored): number =>
    typeof stored === 'string' ? recordExpiry(stored) : stored.expiresAt;
  const ownerOf = (stored: Stored): Owner =>
    typeof stored === 'string' ? (ownersById.get(recordOwner(stored)) as Owner) : stored.owner;
  const bytesOf = (key: string, stored: Stored): number =>
    typeof stored === 'string' ? RECORD_OVERHEAD_BYTES + key.length + stored.length : stored.bytes;

  const queueFor = (durationMs: number): ExpiryQueue => {
    let queue = queues.get(durationMs);
    if (queue === undefined) {
      if (queues.size >= MAX_QUEUES) {
        // Past the bound, records share the longest duration's queue; out of order there, they are
        // still refused as expired when read, and reclaimed once the queue reaches them.
        return queues.get(Math.max(...queues.keys())) as ExpiryQueue;
      }
      queue = new ExpiryQueue();
      queues.set(durationMs, queue);
    }
    return queue;
  };

  const ownerNamed = (name: string): Owner => {
    let owner = owners.get(name);
    if (owner === undefined) {
      owner = new Owner(nextOwnerId++, name);
      owners.set(name, owner);
      ownersById.set(owner.id, owner);
    }
    return owner;
  };

  /** Store `owner`'s `stored` under `key` until `expiresAt`. */
  const put = (key: string, stored: Stored, owner: Owner, durationMs: number, expiresAt: number): void => {
    records.set(key, stored);
    queueFor(durationMs).push(key, expiresAt);
    owner.room = undefined;
  };

  /** Whether `key` names one of `owner`'s records. */
  const holds = (owner: Owner, key: string): boolean => {
    const stored = records.get(key);
    return stored !== undefined && ownerOf(stored) === owner;
  };

  const account = (owner: Owner, entries: number, bytes: number): void => {
    owner.entries += entries;
    owner.bytes += bytes;
    totalBytes += bytes;
    if (owner.entries === 0) {
      owners.delete(owner.name);
      ownersById.delete(owner.id);
    }
  };

  const remove = (key: string, stored: Stored): void => {
    records.delete(key);
    const owner = ownerOf(stored);
    owner.room = undefined;
    account(owner, -1, -bytesOf(key, stored));
  };

  /** Reclaim up to `budget` expired records from the queue heads. */
  const sweep = (at: number, budget: number): void => {
    for (const queue of queues.values()) {
      while (budget > 0 && queue.peekExpiry() <= at) {
        const key = queue.peekKey();
        const queuedExpiry = queue.peekExpiry();
        queue.shift();
        const stored = records.get(key);
        // A key rewritten since it was queued has another expiry: its newer queue entry decides.
        if (stored === undefined || expiryOf(stored) !== queuedExpiry) continue;
        remove(key, stored);
        budget--;
      }
    }
  };

  /** When the owner's own records leave room for a claim of `need` bytes (see `untilOwnerRoom`). */
  const ownerRoomIn = (owner: Owner | undefined, need: number, at: number): number | undefined => {
    if (owner === undefined) return untilOwnerRoom([], need, limits, at);
    if (owner.room?.need !== need) {
      const held = [];
      for (const key of owner.liveKeys(holds)) {
        const stored = records.get(key) as Stored;
        held.push({ expiresAt: expiryOf(stored), bytes: bytesOf(key, stored) });
      }
      const wait = untilOwnerRoom(held, need, limits, at);
      owner.room = { need, at: wait === undefined ? undefined : at + wait };
    }
    return owner.room.at === undefined ? undefined : owner.room.at - at;
  };

  /** Why a new record of `bytes` for `owner` does not fit, or undefined when it does. */
  const overBudget = (ownerName: string, bytes: number): 'owner' | 'store' | undefined => {
    const owner = owners.get(ownerName);
    if (
      owner !== undefined &&
      (owner.entries >= limits.ownerMaxEntries || owner.bytes + bytes > limits.ownerMaxBytes)
    )
      return 'owner';
    if (bytes > limits.ownerMaxBytes) return 'owner';
    if (records.size >= limits.maxEntries || totalBytes + bytes > limits.maxBytes) return 'store';
    return undefined;
  };

  const live = (key: string, at: number): Stored | undefined => {
    const stored = records.get(key);
    if (stored === undefined) return undefined;
    if (expiryOf(stored) > at) return stored;
    remove(key, stored);
    return undefined;
  };

  const owned = (key: string, token: string, at: number): Pending | undefined => {
    const stored = live(key, at);
    return stored instanceof Pending && stored.token === token ? stored : undefined;
  };

  return {
    inProcess: true,
    get size() {
      return records.size;
    },
    get bytes() {
      return totalBytes;
    },
    // Every call answers at once, with a value: an idempotent request waits for nothing here.
    // The key is kept as given: `scopeKey` makes it one flat string, the smallest V8 holds.
    claim(key, fingerprint, leaseMs, ownerName = ANONYMOUS_OWNER): ClaimOutcome {
      const at = now();
      const stored = live(key, at);
      if (typeof stored === 'string') {
        if (!recordMatches(stored, encodeFingerprint(fingerprint).toString('latin1'))) {
          return { kind: 'mismatch' };
        }
        return { kind: 'completed', response: decodeResponse(stored) };
      }
      if (stored !== undefined) {
        return stored.fingerprint === fingerprint ? { kind: 'in-progress' } : { kind: 'mismatch' };
      }
      sweep(at, SWEEP_PER_CLAIM);
      // The claim holds room for a brief record of its response, so completing never overdraws.
      const bytes = claimBytes(key, fingerprint);
      if (overBudget(ownerName, bytes) !== undefined) {
        // Expired records are reclaimed before any claim is refused.
        sweep(at, Number.POSITIVE_INFINITY);
        const scope = overBudget(ownerName, bytes);
        if (scope === 'store') return { kind: 'full', scope };
        if (scope === 'owner') {
          const retryAfterMs = ownerRoomIn(owners.get(ownerName), bytes, at);
          return retryAfterMs === undefined ? { kind: 'full', scope } : { kind: 'full', scope, retryAfterMs };
        }
      }
      const owner = ownerNamed(ownerName);
      const token = String(++lastToken);
      const expiresAt = after(at, leaseMs);
      account(owner, 1, bytes);
      put(key, new Pending(key, fingerprint, token, expiresAt, owner, bytes), owner, leaseMs, expiresAt);
      owner.addKey(key, holds);
      return { kind: 'claimed', token };
    },
    renew(key, token, leaseMs) {
      const at = now();
      const pending = owned(key, token, at);
      if (pending === undefined) return false;
      pending.expiresAt = after(at, leaseMs);
      put(pending.key, pending, pending.owner, leaseMs, pending.expiresAt);
      return true;
    },
    complete(key, token, response, retentionMs) {
      const at = now();
      const pending = owned(key, token, at);
      if (pending === undefined) return false;
      const expiresAt = after(at, retentionMs);
      const { owner } = pending;
      const encoded = (kept: typeof response) => encodeRecord(expiresAt, owner.id, pending.fingerprint, kept);
      // Whole when the owner's budget (and the store's) has room for it: judged first by the bytes
      // `recordBytes` counts, so that megabytes are not copied only to be dropped, then as encoded
      // (a header outside ASCII takes more bytes in UTF-8).
      const room = (bytes: number) =>
        keepsWhole(owner, pending.bytes, bytes, limits) &&
        totalBytes - pending.bytes + bytes <= limits.maxBytes;
      let record = room(recordBytes(key, pending.fingerprint, response)) ? encoded(response) : undefined;
      if (record === undefined || !room(bytesOf(key, record))) {
        // Kept brief, within the room the claim holds: status, Location, validators, no body.
        record = encoded(briefResponse(response, (brief) => bytesOf(key, encoded(brief)) <= pending.bytes));
      }
      account(owner, 0, bytesOf(key, record) - pending.bytes);
      put(pending.key, record, owner, retentionMs, expiresAt);
      return true;
    },
    release(key, token) {
      const pending = owned(key, token, now());
      if (pending === undefined) return false;
      remove(key, pending);
      return true;
    },
  };
}

// The memory store's live entries: a claim in progress, and the owner its records count against.

/** A claim in progress. A completed record is a string (`encodeRecord`). */
export class Pending {
  constructor(
    /** The key as the map holds it: queues share this string rather than keep copies. */
    readonly key: string,
    readonly fingerprint: string,
    readonly token: string,
    public expiresAt: number,
    readonly owner: Owner,
    readonly bytes: number,
  ) {}
}

/** Entries an owner's key list may hold past twice its live records before it is rebuilt. */
const KEYS_SLACK = 16;

/** One owner's usage of the store, and what its `Retry-After` is read from. */
export class Owner {
  entries = 0;
  bytes = 0;
  /**
   * The keys this owner claimed, oldest first: its `Retry-After` is read from those that still name
   * one of its records. A key stays after its record goes (released, expired) and is listed again
   * when claimed again; such entries are dropped once the list holds more than twice the owner's
   * live records. An array, not a `Set`: on Bun the sets took about 105 bytes of heap a record and
   * a tenth of the collector's time in a loop of keyed writes (on Node, 140 bytes).
   */
  private keys: string[] = [];

  /**
   * List a key this owner claimed. `holds(owner, key)` tells whether the key names one of the
   * owner's records now: the list is rebuilt from those when it grows long (amortized O(1)).
   */
  addKey(key: string, holds: (owner: Owner, key: string) => boolean): void {
    this.keys.push(key);
    if (this.keys.length > 2 * this.entries + KEYS_SLACK) this.keys = this.liveKeys(holds);
  }

  /** The keys that name one of this owner's records, each once, oldest first. */
  liveKeys(holds: (owner: Owner, key: string) => boolean): string[] {
    const live: string[] = [];
    const seen = new Set<string>();
    for (const key of this.keys) {
      if (seen.has(key) || !holds(this, key)) continue;
      seen.add(key);
      live.push(key);
    }
    this.keys = live;
    return live;
  }

  /**
   * When this owner's records leave room for a claim of `need` bytes, as last computed: valid until
   * one of its records changes, so a client that keeps retrying a full quota costs no new scan.
   */
  room: { readonly need: number; readonly at: number | undefined } | undefined;
  constructor(
    readonly id: number,
    readonly name: string,
  ) {}
}

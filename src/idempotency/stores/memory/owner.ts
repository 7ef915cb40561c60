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

/** One owner's usage of the store, and what its `Retry-After` is read from. */
export class Owner {
  entries = 0;
  bytes = 0;
  /**
   * The keys this owner claimed, oldest first: its `Retry-After` is read from those that still name
   * one of its records. A key stays after its record goes (released, expired) and is listed again
   * when claimed again; the store drops such entries once they are as many as the live ones. An
   * array, not a `Set`: on Bun the sets took about 105 bytes of heap a record and a tenth of the
   * collector's time in a loop of keyed writes (on Node, 140 bytes).
   */
  keys: string[] = [];
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

/**
 * Keys in the order they expire, for records that all live the same duration: a first-in, first-out
 * queue of (key, expiry) pairs. The memory stores keep one per duration, so reclaiming expired
 * records walks only the expired ones at the head (amortized O(1) per write), never the whole store
 * (a `Map` iterator from its start also walks every hole its deletions left, which is O(n)).
 *
 * An entry whose record was rewritten since (renewed, completed, deleted) is stale; the owner tells
 * which by comparing the queued expiry with the record's.
 */
export class ExpiryQueue {
  private keys: string[] = [];
  private expiries: number[] = [];
  private head = 0;

  /** Items queued, stale ones included. */
  get length(): number {
    return this.keys.length - this.head;
  }

  push(key: string, expiresAt: number): void {
    this.keys.push(key);
    this.expiries.push(expiresAt);
  }

  /** The expiry at the head, or `Infinity` when empty. */
  peekExpiry(): number {
    return this.head < this.keys.length ? (this.expiries[this.head] as number) : Number.POSITIVE_INFINITY;
  }

  /** The key at the head (call only when not empty). */
  peekKey(): string {
    return this.keys[this.head] as string;
  }

  shift(): void {
    this.head++;
    // Drop the consumed prefix once it is half the array: each item is moved at most once more.
    if (this.head >= 1024 && this.head * 2 >= this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.expiries = this.expiries.slice(this.head);
      this.head = 0;
    } else if (this.head === this.keys.length) {
      this.keys = [];
      this.expiries = [];
      this.head = 0;
    }
  }
}

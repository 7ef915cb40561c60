/**
 * A string-keyed map held as many small `Map`s, each key's picked by a hash of its last characters.
 *
 * Why: a memory store writes its map on every request. On JavaScriptCore (Bun), a collection running
 * while the program writes to one large `Map` keeps revisiting the whole table, so the cost of each
 * collection, and the pauses requests wait behind, grow with the table: one `Map` of 100 000 records
 * took Bun's throughput on an authenticated `POST` down by a third and its p99 from 5 to 20 ms
 * (docs/benchmarks.md, "On Bun and Deno"). Small tables keep each revisit small. V8 (Node, Deno)
 * tracks written slots rather than tables, so there it costs one hash more per call.
 *
 * A key that many clients share a shard with (keys chosen to collide) costs them time as one large
 * `Map` does, and never correctness. Iteration order is not the insertion order across shards.
 */
export class ShardedMap<V> {
  private readonly shards: (Map<string, V> | undefined)[] = new Array(SHARDS).fill(undefined);
  private count = 0;

  /** Entries held. */
  get size(): number {
    return this.count;
  }

  get(key: string): V | undefined {
    return this.shards[shardOf(key)]?.get(key);
  }

  has(key: string): boolean {
    return this.shards[shardOf(key)]?.has(key) ?? false;
  }

  set(key: string, value: V): this {
    const index = shardOf(key);
    let shard = this.shards[index];
    if (shard === undefined) {
      shard = new Map();
      this.shards[index] = shard;
    }
    const before = shard.size;
    shard.set(key, value);
    this.count += shard.size - before;
    return this;
  }

  delete(key: string): boolean {
    const shard = this.shards[shardOf(key)];
    if (shard === undefined || !shard.delete(key)) return false;
    this.count--;
    return true;
  }
}

/**
 * Shards per map, a power of two, each made on its first key: with 1 024, 135 000 records cost Bun's
 * collector what an array of them does.
 */
const SHARDS = 1024;
/** Trailing characters hashed: keys end with what varies (a client's `Idempotency-Key`, an id). */
const HASHED_CHARACTERS = 8;

/** FNV-1a over the key's length and last characters, to a shard index. */
function shardOf(key: string): number {
  let hash = 0x811c9dc5 ^ key.length;
  for (let i = Math.max(0, key.length - HASHED_CHARACTERS); i < key.length; i++)
    hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash ^ (hash >>> 15)) & (SHARDS - 1);
}

/**
 * Rows by id, for the memory stores whose ids count up from 1: pages of 1 024 ids, so that a new row
 * is written to the newest small page, never to one table of every row. On Bun, a `Map` of every
 * order, written on each `POST /orders`, made each garbage collection revisit the whole table: a
 * third of the throughput gone and a p99 four times as long (docs/runtimes.md, "A table in memory on
 * Bun").
 * Values come back in id order.
 */
export class IdTable<V> {
  private readonly pages: (V | undefined)[][] = [];

  /** Any number may be asked for (a client's id from a URL): a page never made holds nothing. */
  get(id: number): V | undefined {
    return this.pages[Math.floor(id / PAGE_SIZE)]?.[id % PAGE_SIZE];
  }

  /** `id`: the store's own counter, so the pages before it are made one by one as it counts up. */
  set(id: number, value: V): void {
    const index = Math.floor(id / PAGE_SIZE);
    while (this.pages.length <= index) this.pages.push(new Array<V | undefined>(PAGE_SIZE).fill(undefined));
    (this.pages[index] as (V | undefined)[])[id % PAGE_SIZE] = value;
  }

  delete(id: number): void {
    const page = this.pages[Math.floor(id / PAGE_SIZE)];
    if (page !== undefined) page[id % PAGE_SIZE] = undefined;
  }

  *values(): IterableIterator<V> {
    for (const page of this.pages) for (const value of page) if (value !== undefined) yield value;
  }
}

const PAGE_SIZE = 1024;

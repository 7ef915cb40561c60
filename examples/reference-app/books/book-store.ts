import type { RequestScope } from '../database/request-scope.js';
/** A book as stored. Fields beyond `title` and `author` are internal and never sent. */
export interface Book {
  readonly id: number;
  readonly title: string;
  readonly author: string;
  readonly updatedAt: Date;
  /** Internal stock-keeping data: must never appear in a response. */
  readonly internalSku: string;
}

export interface BookStore {
  list(filter: { readonly author?: string }): Promise<readonly Book[]>;
  /**
   * One book. `options.transaction`: read through the write's own transaction (a handler holding the
   * idempotency transaction must not need a second pooled connection, or a full pool deadlocks).
   */
  get(id: number, request?: RequestScope): Promise<Book | undefined>;
}

const SEED: ReadonlyArray<readonly [string, string]> = [
  ['Ursula K. Le Guin', 'A Wizard of Earthsea'],
  ['Ursula K. Le Guin', 'The Left Hand of Darkness'],
  ['Ursula K. Le Guin', 'The Dispossessed'],
  ['Ursula K. Le Guin', 'The Lathe of Heaven'],
  ['Octavia E. Butler', 'Kindred'],
  ['Octavia E. Butler', 'Parable of the Sower'],
  ['Octavia E. Butler', 'Dawn'],
  ['Octavia E. Butler', 'Wild Seed'],
  ['Italo Calvino', 'Invisible Cities'],
  ['Italo Calvino', 'If on a winter\u2019s night a traveler'],
  ['Italo Calvino', 'The Baron in the Trees'],
  ['Italo Calvino', 'Cosmicomics'],
  ['Stanis\u0142aw Lem', 'Solaris'],
  ['Stanis\u0142aw Lem', 'The Cyberiad'],
];

/** When the seeded catalogue was last changed. */
export const SEEDED_AT = new Date('2026-01-15T09:30:00Z');

/** The catalogue every data store starts with (ids from 1). */
export const BOOK_SEED: readonly Book[] = SEED.map(([author, title], index) => ({
  id: index + 1,
  title,
  author,
  updatedAt: SEEDED_AT,
  internalSku: `SKU-${9000 + index}`,
}));

/** The embedded default: a fixed catalogue in memory. */
export class MemoryBookStore implements BookStore {
  private readonly books: ReadonlyMap<number, Book>;
  private readonly all: readonly Book[];
  /** Authors lower-cased once, for the case-insensitive filter. */
  private readonly authorKeys: readonly string[];

  constructor() {
    this.all = BOOK_SEED;
    this.books = new Map(this.all.map((book) => [book.id, book]));
    this.authorKeys = this.all.map((book) => book.author.toLowerCase());
  }

  async list(filter: { readonly author?: string }): Promise<readonly Book[]> {
    if (filter.author === undefined) return this.all;
    const wanted = filter.author.toLowerCase();
    return this.all.filter((_book, index) => this.authorKeys[index] === wanted);
  }

  async get(id: number): Promise<Book | undefined> {
    return this.books.get(id);
  }
}

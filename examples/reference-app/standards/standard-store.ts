import type { RequestScope } from '../database/request-scope.js';
import { type Page, type PageRequest, pageOf } from './standard-order.js';

export const STANDARD_STATUSES = ['draft', 'published', 'retired'] as const;
export type StandardStatus = (typeof STANDARD_STATUSES)[number];

/** A standard as stored. */
export interface Standard {
  readonly id: string;
  /** Unique, e.g. `ISO-8601`. */
  readonly code: string;
  readonly name: string;
  readonly description: string | null;
  readonly status: StandardStatus;
  /** Set by the service when the status first becomes `published`. */
  readonly publishedAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Increments on every change; the ETag is derived from it. */
  readonly version: number;
  /** Internal: must never appear in a response. */
  readonly reviewNotes: string;
}

export interface StandardInput {
  readonly code: string;
  readonly name: string;
  readonly description?: string | null;
  readonly status?: StandardStatus;
}

export type StandardChanges = Partial<StandardInput>;

export type StandardLookup =
  | { readonly kind: 'live'; readonly standard: Standard }
  | { readonly kind: 'deleted' }
  | { readonly kind: 'absent' };

export type StandardWrite =
  | { readonly kind: 'ok'; readonly standard: Standard }
  | { readonly kind: 'duplicate-code' };

export interface StandardStore {
  create(input: StandardInput, request?: RequestScope): Promise<StandardWrite>;
  /** `request`: a keyed write's layers load through its transaction (see `RequestScope`). */
  find(id: string, request?: RequestScope): Promise<StandardLookup>;
  /**
   * Apply changes to a live standard still at `expectedVersion` (compare-and-set); `undefined` when
   * it is not live or the version moved on.
   */
  update(
    id: string,
    expectedVersion: number,
    changes: StandardChanges,
    request?: RequestScope,
  ): Promise<StandardWrite | undefined>;
  /** Delete and leave a tombstone, so a repeated DELETE still answers 204. */
  delete(id: string): Promise<void>;
  list(): Promise<readonly Standard[]>;
  /** One keyset page of the live standards (`standard-order.ts`): stable under inserts and deletes. */
  page(request: PageRequest): Promise<Page>;
}

/** The embedded default store. */
export class MemoryStandardStore implements StandardStore {
  private readonly standards = new Map<string, Standard>();
  private readonly tombstones = new Set<string>();

  constructor(
    private readonly now: () => Date = () => new Date(),
    private readonly newId: () => string = () => crypto.randomUUID(),
  ) {}

  async create(input: StandardInput): Promise<StandardWrite> {
    if (this.codeTaken(input.code)) return { kind: 'duplicate-code' };
    const now = this.now();
    const status = input.status ?? 'draft';
    const standard: Standard = {
      id: this.newId(),
      code: input.code,
      name: input.name,
      description: input.description ?? null,
      status,
      publishedAt: status === 'published' ? now : null,
      createdAt: now,
      updatedAt: now,
      version: 1,
      reviewNotes: 'internal review pending',
    };
    this.standards.set(standard.id, standard);
    return { kind: 'ok', standard };
  }

  async find(id: string): Promise<StandardLookup> {
    const standard = this.standards.get(id);
    if (standard !== undefined) return { kind: 'live', standard };
    return this.tombstones.has(id) ? { kind: 'deleted' } : { kind: 'absent' };
  }

  async update(
    id: string,
    expectedVersion: number,
    changes: StandardChanges,
  ): Promise<StandardWrite | undefined> {
    const current = this.standards.get(id);
    if (current === undefined || current.version !== expectedVersion) return undefined;
    if (changes.code !== undefined && changes.code !== current.code && this.codeTaken(changes.code)) {
      return { kind: 'duplicate-code' };
    }
    const now = this.now();
    const status = changes.status ?? current.status;
    const next: Standard = {
      ...current,
      ...(changes.code !== undefined ? { code: changes.code } : {}),
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      status,
      publishedAt: current.publishedAt ?? (status === 'published' ? now : null),
      updatedAt: now,
      version: current.version + 1,
    };
    this.standards.set(id, next);
    return { kind: 'ok', standard: next };
  }

  async delete(id: string): Promise<void> {
    if (this.standards.delete(id)) this.tombstones.add(id);
  }

  async list(): Promise<readonly Standard[]> {
    return [...this.standards.values()];
  }

  async page(request: PageRequest): Promise<Page> {
    return pageOf(this.standards.values(), request);
  }

  private codeTaken(code: string): boolean {
    for (const standard of this.standards.values()) if (standard.code === code) return true;
    return false;
  }
}

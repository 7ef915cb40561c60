import type { KitContext } from './context.js';

/** The properties' names for `only` and `skip` (docs/testing.md, "The properties"). */
export const PROPERTY_IDS = [
  'documents',
  'bad-input',
  'safe-methods',
  'idempotency',
  'validators',
  'idempotent-writes',
  'ownership',
  'versions',
  'deprecation',
  'moved',
  'rate-limits',
  'query',
  'jsonapi-parameters',
  'links',
] as const;

export type PropertyId = (typeof PROPERTY_IDS)[number];

/** One property of the conventions, ready to run. */
export interface ConventionProperty {
  /** Its short name, for `only` and `skip`. */
  readonly id: PropertyId;
  /** What it checks, in a sentence. */
  readonly name: string;
  /** Resolves when the property holds; rejects with the shrunk request and response when not. */
  check(): Promise<void>;
}

/** A module of the kit: the properties it makes for a context (none when nothing to check). */
export type PropertyFactory = (context: KitContext) => ConventionProperty[];

import fc from 'fast-check';
import type { OpenApiDocument } from '../openapi/types.js';
import { discover, operationsOf, subjectOf } from './discover.js';
import { NotApplicable, NotChecked, QuotaRefused, withSeed } from './failure.js';
import { badInputProperty } from './properties/bad-input.js';
import { type CreateHint, kitContext, type MovedUrl } from './properties/context.js';
import { deprecationProperty } from './properties/deprecation.js';
import { documentsProperty } from './properties/documents.js';
import { idempotencyProperty } from './properties/idempotency.js';
import { idempotentWritesProperty } from './properties/idempotent-writes.js';
import { jsonApiParametersProperty } from './properties/jsonapi-parameters.js';
import { linksProperty } from './properties/links.js';
import { movedProperty } from './properties/moved.js';
import { ownershipProperty } from './properties/ownership.js';
import {
  type ConventionProperty,
  PROPERTY_IDS,
  type PropertyFactory,
  type PropertyId,
} from './properties/property.js';
import { queryProperty } from './properties/query.js';
import { rateLimitsProperty } from './properties/rate-limits.js';
import { safeMethodsProperty } from './properties/safe-methods.js';
import { validatorsProperty } from './properties/validators.js';
import { versionsProperty } from './properties/versions.js';
import type { Target } from './target.js';

export type { CreateHint, MovedUrl } from './properties/context.js';
export { type ConventionProperty, PROPERTY_IDS, type PropertyId } from './properties/property.js';

/** Statuses a server or framework answers before any route runs: URI too long, header fields too large. */
export const FRAMEWORK_STATUSES: readonly number[] = [414, 431];

/** `production` requires every security header; `development` (plain HTTP) not `Strict-Transport-Security`. */
export type KitProfile = 'production' | 'development';

export interface KitOptions {
  readonly target: Target;
  readonly document: OpenApiDocument;
  /** Bearer tokens of two different users; `admin` optionally one with extra scopes. */
  readonly principals: { readonly a: string; readonly b: string; readonly admin?: string };
  /** The subjects (`sub`) of `a` and `b`; default: read from the tokens when they are JWTs. */
  readonly subjects?: { readonly a: string; readonly b: string };
  /** Resources the kit may create; default: every creating operation of the document. */
  readonly creates?: readonly CreateHint[];
  /** Moved URLs; default: the document's operations that declare 301 or 308. */
  readonly moved?: readonly MovedUrl[];
  /** Versions the API lists; default: the document's `/vN` paths and `version=` media type parameters. */
  readonly versions?: readonly string[];
  /** Only these properties (by id, see `PROPERTY_IDS`); `skip` leaves some out. */
  readonly only?: readonly PropertyId[];
  readonly skip?: readonly PropertyId[];
  /** Default `production`; `development` does not require HSTS (RFC 6797 applies to HTTPS only). */
  readonly profile?: KitProfile;
  /** Response headers not required of every response (`cache-control`, a security header). */
  readonly relax?: readonly string[];
  /**
   * Statuses the framework answers before routing (default `FRAMEWORK_STATUSES`): accepted on every
   * operation when the document declares them somewhere.
   */
  readonly frameworkStatuses?: readonly number[];
  /** Runs per property (default 30) and fast-check's seed value (default fast-check's global one, else a fresh one, always reported). */
  readonly numRuns?: number;
  readonly seed?: number;
  /** Time per property (default 30 s): a run stops there and reports what it did. */
  readonly timeLimitMs?: number;
}

/** The outcome of one property, as the CLI prints it. */
export interface PropertyReport {
  readonly id: PropertyId;
  readonly name: string;
  /** `true` when it held, or did not apply (then `skipped` says why). */
  readonly passed: boolean;
  readonly skipped?: string;
  /**
   * Not checked: the API refused the kit (a 429 it could not wait out, or a 401/403 for every
   * request a property needs: its tokens lack a scope). `passed` is false, but no convention was
   * found broken: this is the environment the kit ran in.
   */
  readonly refused?: string;
  /**
   * Why it was not checked: `quota` (a 429 the kit could not wait out) or `scope` (the API refused the
   * kit's tokens with 401 or 403). Set with `refused`.
   */
  readonly refusedBy?: 'quota' | 'scope';
  readonly seed: number;
  readonly message?: string;
}

const FACTORIES: readonly PropertyFactory[] = [
  documentsProperty,
  badInputProperty,
  safeMethodsProperty,
  idempotencyProperty,
  validatorsProperty,
  idempotentWritesProperty,
  ownershipProperty,
  versionsProperty,
  deprecationProperty,
  movedProperty,
  rateLimitsProperty,
  queryProperty,
  jsonApiParametersProperty,
  linksProperty,
];

function validated(options: KitOptions): void {
  for (const key of ['only', 'skip'] as const) {
    const unknown = options[key]?.find((id) => !PROPERTY_IDS.includes(id));
    if (unknown !== undefined)
      throw new TypeError(
        `conventionProperties: ${key} names no property: "${unknown}" (properties: ${PROPERTY_IDS.join(', ')})`,
      );
  }
  if (options.profile !== undefined && options.profile !== 'production' && options.profile !== 'development')
    throw new TypeError(
      `conventionProperties: profile is "production" or "development", not "${options.profile}"`,
    );
  for (const key of ['numRuns', 'timeLimitMs'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isInteger(value) && value > 0))
      throw new TypeError(`conventionProperties: ${key} is a positive integer, not ${value}`);
  }
  if (options.seed !== undefined && !Number.isSafeInteger(options.seed))
    throw new TypeError(`conventionProperties: seed is an integer, not ${options.seed}`);
  const status = options.frameworkStatuses?.find((s) => !(Number.isInteger(s) && s >= 100 && s <= 599));
  if (status !== undefined)
    throw new TypeError(`conventionProperties: frameworkStatuses holds ${status}, not a status`);
}

/** The statuses of `wanted` the document declares on some operation or in `components.responses`. */
function declaredStatuses(document: OpenApiDocument, wanted: readonly number[]): Set<number> {
  const declared = new Set(
    Object.keys((document.components as { responses?: object } | undefined)?.responses ?? {}),
  );
  for (const [, , operation] of operationsOf(document))
    for (const status of Object.keys(operation.responses)) declared.add(status);
  return new Set(wanted.filter((status) => declared.has(String(status))));
}

/**
 * The properties of the conventions over a target described by its OpenAPI document. Each is a
 * fast-check property, bounded in runs and time, that reports its seed and its shrunk counterexample
 * (as a `curl` command and the response). What is not given is read from the document (see `discover`).
 *
 * @example
 * for (const property of conventionProperties({ target: fetchTarget(app.fetch), document, principals })) {
 *   it(property.name, () => property.check(), 60_000);
 * }
 */
export function conventionProperties(options: KitOptions): ConventionProperty[] {
  validated(options);
  const seed = options.seed ?? fc.readConfigureGlobal().seed ?? Math.floor(Math.random() * 2 ** 31);
  const found = discover(options.document);
  const subA = subjectOf(options.principals.a);
  const subB = subjectOf(options.principals.b);
  const context = kitContext({
    target: options.target,
    document: options.document,
    principals: options.principals,
    subjects:
      options.subjects ?? (subA !== undefined && subB !== undefined ? { a: subA, b: subB } : undefined),
    creates: options.creates ?? found.creates,
    versions: options.versions ?? found.versions,
    moved: options.moved ?? found.moved,
    numRuns: options.numRuns ?? 30,
    seed,
    timeLimitMs: options.timeLimitMs ?? 30_000,
    relaxed: new Set([
      ...(options.relax ?? []).map((name) => name.toLowerCase()),
      ...(options.profile === 'development' ? ['strict-transport-security'] : []),
    ]),
    frameworkStatuses: declaredStatuses(options.document, options.frameworkStatuses ?? FRAMEWORK_STATUSES),
  });
  return FACTORIES.flatMap((factory) => factory(context))
    .filter(
      (p) => (options.only === undefined || options.only.includes(p.id)) && !options.skip?.includes(p.id),
    )
    .map((p) => ({
      id: p.id,
      name: p.name,
      check: () => p.check().catch((e: unknown) => Promise.reject(withSeed(e, seed))),
    }));
}

/** Run every property once, in order, and report each. */
export async function checkConventions(options: KitOptions): Promise<PropertyReport[]> {
  const seed = options.seed ?? fc.readConfigureGlobal().seed ?? Math.floor(Math.random() * 2 ** 31);
  const reports: PropertyReport[] = [];
  for (const property of conventionProperties({ ...options, seed })) {
    const { id, name } = property;
    try {
      await property.check();
      reports.push({ id, name, passed: true, seed });
    } catch (error) {
      reports.push(
        error instanceof NotApplicable
          ? { id, name, passed: true, skipped: error.message, seed }
          : error instanceof NotChecked
            ? {
                id,
                name,
                passed: false,
                refused: error.message,
                refusedBy: error instanceof QuotaRefused ? 'quota' : 'scope',
                seed,
              }
            : { id, name, passed: false, seed, message: (error as Error).message },
      );
    }
  }
  return reports;
}

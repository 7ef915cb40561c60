import fc from 'fast-check';
import type { OpenApiDocument } from '../../openapi/types.js';
import { conformanceChecker } from '../conformance.js';
import { fail, NotChecked } from '../failure.js';
import { operationMatcher } from '../operation-matcher.js';
import { type GeneratedRequest, requestArbitrary } from '../operation-requests.js';
import { respectingQuotas } from '../quota.js';
import type { Target, TargetRequest, TargetResponse } from '../target.js';
import { type CreateHint, type Creations, creations, pathOf } from './creation.js';

export type { CreateHint } from './creation.js';

/** An old URL and its new place (path templates, `{id}` filled alike). */
export interface MovedUrl {
  readonly from: string;
  readonly to?: string;
}

/** What every property shares: the target, the document, the principals and the run's bounds. */
export interface KitContext extends Creations {
  readonly document: OpenApiDocument;
  /** Where the reports' `curl` commands send a request (the target's URL). */
  readonly base: string | undefined;
  readonly principals: { readonly a: string; readonly b: string; readonly admin?: string };
  readonly subjects: { readonly a: string; readonly b: string } | undefined;
  /** The resources the kit may create, given or read from the document. */
  readonly creates: readonly CreateHint[];
  /** The versions the API lists (`1`, `2`), given or read from the document. */
  readonly versions: readonly string[];
  /** Moved URLs: `from` (a path template) answers 301/308 to `to`, or to a documented path when absent. */
  readonly moved: readonly MovedUrl[];
  readonly numRuns: number;
  /** Response headers not required of every response (`strict-transport-security` on plain HTTP). */
  readonly relaxed: ReadonlySet<string>;
  /** Statuses the framework answers before routing, accepted on every operation (see `kit.ts`). */
  readonly frameworkStatuses: ReadonlySet<number>;
  readonly conform: ReturnType<typeof conformanceChecker>;
  readonly match: ReturnType<typeof operationMatcher>;
  /** Path parameter values known to name something (principal a's subject). */
  readonly known: { readonly pathValues?: readonly string[] };
  /** Requests from the document: a's valid and broken ones, b's broken ones. */
  readonly anyRequest: fc.Arbitrary<GeneratedRequest>;
  /**
   * Send a request; a 429 the kit can wait out (a short `Retry-After`) is waited out and the request
   * sent again, any other rejects with `QuotaRefused` (the environment, not a convention).
   */
  send(request: TargetRequest): Promise<TargetResponse>;
  /** Send a request once, whatever the answer (the rate-limit property looks at the 429s themselves). */
  sendOnce(request: TargetRequest): Promise<TargetResponse>;
  bearer(token: string): Record<string, string>;
  fromGenerated(g: GeneratedRequest): TargetRequest;
  /** Stop the run: `what` is wrong with the answer to `request` (shown as `curl` and response). */
  fail(what: string, request: TargetRequest, response?: TargetResponse): never;
  /** A fast-check property over `arbitrary`, with the run's seed and bounds. */
  run<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, runs?: number): Promise<void>;
  /** Create as principal a: the new resource's path and the GET that reads it as a. */
  createdByA(hint: CreateHint): Promise<{ path: string; read: TargetRequest }>;
}

export interface ContextOptions {
  readonly target: Target;
  readonly document: OpenApiDocument;
  readonly principals: KitContext['principals'];
  readonly subjects: KitContext['subjects'];
  readonly creates: readonly CreateHint[];
  readonly versions: readonly string[];
  readonly moved: readonly MovedUrl[];
  readonly numRuns: number;
  readonly seed: number;
  readonly timeLimitMs: number;
  readonly relaxed: ReadonlySet<string>;
  readonly frameworkStatuses: ReadonlySet<number>;
}

export function kitContext(options: ContextOptions): KitContext {
  const { target, document, principals, subjects, numRuns, seed } = options;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  // A request that gets no answer (a reset, a body shorter than its Content-Length) fails with it.
  const sendOnce = (request: TargetRequest) =>
    target.send(request).catch((error: unknown) => {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      return fail(
        `no answer: ${(error as Error).message}${cause ? ` (${cause})` : ''}`,
        request,
        undefined,
        target.base,
      );
    });
  const send = respectingQuotas(sendOnce, target.base);
  const failHere = (what: string, request: TargetRequest, response?: TargetResponse): never =>
    fail(what, request, response, target.base);
  const known = subjects ? { pathValues: [subjects.a] } : {};
  const match = operationMatcher(document);
  const { creation, create, mustCreate } = creations({
    document,
    principals,
    subjects,
    creates: options.creates,
    match,
    send,
    fail: failHere,
  });
  return {
    document,
    base: target.base,
    principals,
    subjects,
    creates: options.creates,
    versions: options.versions,
    moved: options.moved,
    numRuns,
    relaxed: options.relaxed,
    frameworkStatuses: options.frameworkStatuses,
    conform: conformanceChecker(document),
    match,
    known,
    anyRequest: fc.oneof(
      { weight: 3, arbitrary: requestArbitrary(document, { headers: bearer(principals.a), ...known }) },
      {
        weight: 1,
        arbitrary: requestArbitrary(document, { headers: bearer(principals.b), valid: false, ...known }),
      },
    ),
    send,
    sendOnce,
    bearer,
    fromGenerated: (g) => ({
      method: g.method,
      path: g.path,
      query: g.query,
      headers: g.headers,
      ...(g.body === undefined ? {} : { body: g.body }),
    }),
    fail: failHere,
    run: async (arbitrary, predicate, runs = numRuns) => {
      // Once the API refused the kit (its quota, its tokens' scopes), every further run is refused at
      // once, without a request: fast-check's shrinking then ends quickly, and the refusal is reported.
      let refused: NotChecked | undefined;
      const guarded = async (value: Parameters<typeof predicate>[0]) => {
        if (refused !== undefined) throw refused;
        try {
          await predicate(value);
        } catch (error) {
          if (error instanceof NotChecked) refused = error;
          throw error;
        }
      };
      try {
        await fc.assert(fc.asyncProperty(arbitrary, guarded), {
          numRuns: runs,
          seed,
          interruptAfterTimeLimit: options.timeLimitMs,
          markInterruptAsFailure: false,
        });
      } catch (error) {
        throw refused ?? error;
      }
    },
    creation,
    create,
    mustCreate,
    createdByA: async (hint) => {
      const path = pathOf(await mustCreate(hint, principals.a));
      return { path, read: { method: 'GET', path, headers: bearer(principals.a) } };
    },
  };
}

/** A path template filled with the subject of principal a, or `undefined` when it has no subject. */
export function filledWithSubject(ctx: KitContext, template: string): string | undefined {
  if (!template.includes('{')) return template;
  const value = ctx.known.pathValues?.[0];
  return value === undefined ? undefined : template.replace(/\{[^}/]+\}/g, encodeURIComponent(value));
}

/** The last segment of a path, decoded: the id of what it names. */
export const idOf = (location: string): string =>
  decodeURIComponent(location.split('/').filter(Boolean).at(-1) ?? '');

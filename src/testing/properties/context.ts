import fc from 'fast-check';
import type { OpenApiDocument } from '../../openapi/types.js';
import { conformanceChecker } from '../conformance.js';
import { fail, NotApplicable } from '../failure.js';
import { operationMatcher } from '../operation-matcher.js';
import { type GeneratedRequest, requestArbitrary } from '../operation-requests.js';
import type { Target, TargetRequest, TargetResponse } from '../target.js';

/** A resource the kit may create to check writes, replays, validators and ownership. */
export interface CreateHint {
  /** The creating operation's path (`/orders`); POSTed with `body`. */
  readonly path: string;
  readonly body: unknown;
  /** The media type `body` is sent as (default `application/json`). */
  readonly contentType?: string;
  /** Another valid body (for the replay-with-a-different-body check); default: none, that check is skipped. */
  readonly otherBody?: unknown;
  /** A PATCH body that changes the resource (for validators and idempotent writes). */
  readonly update?: unknown;
  /**
   * Other paths that reach the created resource for its owner, from its id and the owner's subject:
   * `(id, sub) => [`/users/${sub}/orders/${id}`]`. Another principal must get what a missing one gets.
   */
  readonly nested?: (id: string, sub: string) => readonly string[];
}

/** An old URL and its new place (path templates, `{id}` filled alike). */
export interface MovedUrl {
  readonly from: string;
  readonly to?: string;
}

/** What every property shares: the target, the document, the principals and the run's bounds. */
export interface KitContext {
  readonly document: OpenApiDocument;
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
  send(request: TargetRequest): Promise<TargetResponse>;
  bearer(token: string): Record<string, string>;
  fromGenerated(g: GeneratedRequest): TargetRequest;
  /** Stop the run: `what` is wrong with the answer to `request` (shown as `curl` and response). */
  fail(what: string, request: TargetRequest, response?: TargetResponse): never;
  /** A fast-check property over `arbitrary`, with the run's seed and bounds. */
  run<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, runs?: number): Promise<void>;
  /** POST the hint's body (or `body`) as `token`, with an Idempotency-Key when given. */
  create(
    hint: CreateHint,
    token: string,
    key?: string,
    body?: unknown,
  ): Promise<{ request: TargetRequest; response: TargetResponse; location: string | undefined }>;
  /**
   * Create and return the new resource's path; a failure when it does not answer 201 with Location,
   * not applicable when the principal may not create (401, 403).
   */
  mustCreate(hint: CreateHint, token: string): Promise<string>;
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
  const send = (request: TargetRequest) =>
    target.send(request).catch((error: unknown) => {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      return fail(
        `no answer: ${(error as Error).message}${cause ? ` (${cause})` : ''}`,
        request,
        undefined,
        target.base,
      );
    });
  const failHere = (what: string, request: TargetRequest, response?: TargetResponse): never =>
    fail(what, request, response, target.base);
  const known = subjects ? { pathValues: [subjects.a] } : {};
  const create: KitContext['create'] = async (hint, token, key, body = hint.body) => {
    const request: TargetRequest = {
      method: 'POST',
      path: hint.path,
      headers: {
        ...bearer(token),
        'content-type': hint.contentType ?? 'application/json',
        ...(key ? { 'idempotency-key': key } : {}),
      },
      body: JSON.stringify(body),
    };
    const response = await send(request);
    return { request, response, location: response.headers.location };
  };
  const mustCreate: KitContext['mustCreate'] = async (hint, token) => {
    const made = await create(hint, token, crypto.randomUUID());
    if (made.response.status === 401 || made.response.status === 403)
      throw new NotApplicable(
        `POST ${hint.path} answers ${made.response.status}: the principal may not create`,
      );
    if (made.response.status !== 201 || made.location === undefined)
      return failHere('creating the resource did not answer 201 with Location', made.request, made.response);
    return made.location;
  };
  return {
    document,
    principals,
    subjects,
    creates: options.creates,
    versions: options.versions,
    moved: options.moved,
    numRuns,
    relaxed: options.relaxed,
    frameworkStatuses: options.frameworkStatuses,
    conform: conformanceChecker(document),
    match: operationMatcher(document),
    known,
    anyRequest: fc.oneof(
      { weight: 3, arbitrary: requestArbitrary(document, { headers: bearer(principals.a), ...known }) },
      {
        weight: 1,
        arbitrary: requestArbitrary(document, { headers: bearer(principals.b), valid: false, ...known }),
      },
    ),
    send,
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
      await fc.assert(fc.asyncProperty(arbitrary, predicate), {
        numRuns: runs,
        seed,
        interruptAfterTimeLimit: options.timeLimitMs,
        markInterruptAsFailure: false,
      });
    },
    create,
    mustCreate,
    createdByA: async (hint) => {
      const path = pathOf(await mustCreate(hint, principals.a));
      return { path, read: { method: 'GET', path, headers: bearer(principals.a) } };
    },
  };
}

/** The path of a `Location` (absolute or relative). */
const pathOf = (location: string): string => new URL(location, 'http://x').pathname;

/** The last segment of a path, decoded: the id of what it names. */
export const idOf = (location: string): string =>
  decodeURIComponent(location.split('/').filter(Boolean).at(-1) ?? '');

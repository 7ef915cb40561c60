import fc from 'fast-check';
import type { OpenApiDocument } from '../openapi/types.js';
import { conformanceChecker } from './conformance.js';
import {
  hostileBody,
  hostileHeaders,
  hostilePath,
  hostileQuery,
  idempotencyKey,
} from './convention-arbitraries.js';
import { operationMatcher } from './operation-matcher.js';
import { type GeneratedRequest, requestArbitrary } from './operation-requests.js';
import { describeResponse, documentProblems } from './response-checks.js';
import type { Target, TargetRequest, TargetResponse } from './target.js';

/** A resource the kit may create to check writes, replays, validators and ownership. */
export interface CreateHint {
  /** The creating operation's path (`/orders`); POSTed with `body` as `application/json`. */
  readonly path: string;
  readonly body: unknown;
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

export interface KitOptions {
  readonly target: Target;
  readonly document: OpenApiDocument;
  /** Bearer tokens of two different users; `admin` optionally one with extra scopes. */
  readonly principals: { readonly a: string; readonly b: string; readonly admin?: string };
  /** The subjects (`sub`) of `a` and `b`, for nested paths. */
  readonly subjects?: { readonly a: string; readonly b: string };
  readonly creates?: readonly CreateHint[];
  /** Moved URLs: `from` must redirect (301/308) to `to`, keeping the query. */
  readonly moved?: readonly { readonly from: string; readonly to: string }[];
  /** Versions the API lists, asked for with `Accept: application/vnd.api+json;version=<n>`. */
  readonly versions?: readonly string[];
  /** Runs per property (default 30) and the random seed (default: a fresh one, always reported). */
  readonly numRuns?: number;
  readonly seed?: number;
  /** Time per property (default 30 s): a run stops there and reports what it did. */
  readonly timeLimitMs?: number;
}

/** One property of the conventions, ready to run. */
export interface ConventionProperty {
  readonly name: string;
  /** Resolves when the property holds; rejects with the shrunk request and response when not. */
  check(): Promise<void>;
}

/** The outcome of one property, as the CLI prints it. */
export interface PropertyReport {
  readonly name: string;
  readonly passed: boolean;
  readonly seed: number;
  readonly message?: string;
}

class Violation extends Error {}

/** How many times the rate-limit property sends each request in a row. */
const RATE_BURST = 6;

/** A version no API lists, asked for to see it refused with 406. */
const UNKNOWN_VERSION = '99';

function fail(what: string, request: TargetRequest, response?: TargetResponse): never {
  const sent = `${request.method} ${request.path}${request.query ? `?${request.query}` : ''}`;
  throw new Violation(
    `${what}\nrequest: ${sent}${request.body ? `\n  body: ${String(request.body).slice(0, 300)}` : ''}${response ? `\nresponse: ${describeResponse(response)}` : ''}`,
  );
}

/**
 * The properties of the conventions over a target described by its OpenAPI document. Each is a
 * fast-check property, bounded in runs and time, that reports its seed and its shrunk counterexample.
 *
 * @example
 * for (const property of conventionProperties({ target: fetchTarget(app.fetch), document, principals })) {
 *   it(property.name, () => property.check(), 60_000);
 * }
 */
export function conventionProperties(options: KitOptions): ConventionProperty[] {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const numRuns = options.numRuns ?? 30;
  const interruptAfterTimeLimit = options.timeLimitMs ?? 30_000;
  const { target, document, principals } = options;
  const conform = conformanceChecker(document);
  const match = operationMatcher(document);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const send = (request: TargetRequest) => target.send(request);
  const fromGenerated = (g: GeneratedRequest): TargetRequest => ({
    method: g.method,
    path: g.path,
    query: g.query,
    headers: g.headers,
    ...(g.body === undefined ? {} : { body: g.body }),
  });
  const run = async <T>(
    arbitrary: fc.Arbitrary<T>,
    predicate: (value: T) => Promise<void>,
    runs = numRuns,
  ) => {
    await fc.assert(fc.asyncProperty(arbitrary, predicate), {
      numRuns: runs,
      seed,
      interruptAfterTimeLimit,
      markInterruptAsFailure: false,
    });
  };
  const create = async (hint: CreateHint, token: string, key?: string, body: unknown = hint.body) => {
    const request: TargetRequest = {
      method: 'POST',
      path: hint.path,
      headers: {
        ...bearer(token),
        'content-type': 'application/json',
        ...(key ? { 'idempotency-key': key } : {}),
      },
      body: JSON.stringify(body),
    };
    const response = await send(request);
    return { request, response, location: response.headers.location };
  };
  const mustCreate = async (hint: CreateHint, token: string) => {
    const made = await create(hint, token, crypto.randomUUID());
    if (made.response.status !== 201 || made.location === undefined)
      fail('creating the resource did not answer 201 with Location', made.request, made.response);
    return made.location;
  };
  const idOf = (location: string) => decodeURIComponent(location.split('/').filter(Boolean).at(-1) ?? '');
  const pathOf = (location: string) => new URL(location, 'http://x').pathname;
  // Principal a's own id reaches its own resources (`/users/{id}`), not only 404s.
  const known = options.subjects ? { pathValues: [options.subjects.a] } : {};
  const anyRequest = fc.oneof(
    { weight: 3, arbitrary: requestArbitrary(document, { headers: bearer(principals.a), ...known }) },
    {
      weight: 1,
      arbitrary: requestArbitrary(document, { headers: bearer(principals.b), valid: false, ...known }),
    },
  );

  const properties: ConventionProperty[] = [
    {
      name: 'every response is a convention document with security headers, caching and no internals',
      check: () =>
        run(anyRequest, async (g) => {
          const request = fromGenerated(g);
          const response = await send(request);
          const problems = documentProblems(response, request.method);
          if (problems.length > 0) fail(problems.join('; '), request, response);
        }),
    },
    {
      name: 'no bad input gets a 5xx, and only documented statuses are used',
      check: () =>
        run(
          fc.oneof(
            anyRequest.map((g) => ({ ...fromGenerated(g), valid: g.valid })),
            fc
              .tuple(
                hostilePath(Object.keys(document.paths ?? {}).map((p) => p.replace(/\{[^}]+\}/g, '1'))),
                hostileQuery(),
                hostileHeaders(),
                hostileBody(),
                fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT'),
              )
              .map(
                ([path, query, headers, body, method]): TargetRequest => ({
                  method,
                  path,
                  query,
                  headers,
                  ...(method === 'GET' ? {} : { body }),
                }),
              ),
          ),
          async (request) => {
            const response = await send(request);
            // A request that follows the document is not bad input: a server fault on it is the
            // first property's (no stack trace, a convention document), not this one's.
            const valid = (request as { valid?: boolean }).valid === true;
            if (response.status >= 500 && !valid)
              fail(`a ${response.status} for a client's input`, request, response);
            // A server may or may not take `/books/` for `/books`; refusing it with 404 is fine.
            if (response.status === 404 && request.path.length > 1 && request.path.endsWith('/')) return;
            const verdict = conform({
              method: request.method,
              path: request.path,
              status: response.status,
              headers: response.headers,
              body: response.text,
            });
            if (verdict.problems.length > 0) fail(verdict.problems.join('; '), request, response);
          },
        ),
    },
    {
      name: 'GET and HEAD change nothing',
      check: () =>
        run(
          requestArbitrary(document, {
            headers: bearer(principals.a),
            ...known,
            operations: (op) => op.startsWith('GET '),
          }),
          async (g) => {
            const request = fromGenerated(g);
            const before = await send(request);
            await send({ ...request, method: 'HEAD' });
            await send(request);
            const after = await send(request);
            if (before.status !== after.status || (before.status === 200 && before.text !== after.text)) {
              fail('the same GET answered differently after GET and HEAD requests', request, after);
            }
          },
        ),
    },
  ];

  for (const hint of options.creates ?? []) {
    properties.push(
      {
        name: `POST ${hint.path} with an Idempotency-Key is replayed, refused with 422 for another body, and runs once under concurrent retries`,
        check: () =>
          run(
            fc.tuple(idempotencyKey(), fc.integer({ min: 2, max: 6 })),
            async ([key, copies]) => {
              const first = await create(hint, principals.a, key);
              if (first.response.status !== 201)
                fail('a POST with a fresh key did not create', first.request, first.response);
              const again = await create(hint, principals.a, key);
              if (
                again.response.status !== first.response.status ||
                again.location !== first.location ||
                again.response.text !== first.response.text
              ) {
                fail(
                  'a retry with the same key was not replayed as the first answer',
                  again.request,
                  again.response,
                );
              }
              if (again.response.headers['idempotent-replayed'] === undefined)
                fail('a replay does not say Idempotent-Replayed', again.request, again.response);
              if (hint.otherBody !== undefined) {
                const other = await create(hint, principals.a, key, hint.otherBody);
                if (other.response.status !== 422)
                  fail(
                    'the same key with another body was not refused with 422',
                    other.request,
                    other.response,
                  );
              }
              const fresh = `${key.replace(/"/g, '')}-c`;
              const racing = await Promise.all(
                Array.from({ length: copies }, () => create(hint, principals.a, fresh)),
              );
              const locations = new Set(
                racing.filter((r) => r.response.status === 201).map((r) => r.location),
              );
              if (locations.size !== 1)
                fail(
                  `${copies} concurrent retries with one key created ${locations.size} resources`,
                  racing[0]!.request,
                  racing[0]!.response,
                );
            },
            Math.min(numRuns, 10),
          ),
      },
      {
        name: `a resource made by POST ${hint.path} keeps its validators: 304, 412 without change, 428`,
        check: () =>
          run(
            fc.constant(null),
            async () => {
              const path = pathOf(await mustCreate(hint, principals.a));
              const read: TargetRequest = { method: 'GET', path, headers: bearer(principals.a) };
              const got = await send(read);
              const etag = got.headers.etag;
              if (etag === undefined) return;
              const cached = await send({ ...read, headers: { ...read.headers, 'if-none-match': etag } });
              if (cached.status !== 304 || cached.text !== '')
                fail('a GET with the current ETag did not get an empty 304', read, cached);
              const missing304 = documentProblems({
                ...cached,
                headers: { 'cache-control': 'x', ...cached.headers },
              }).filter((p) => p.startsWith('security'));
              if (missing304.length > 0) fail(missing304.join('; '), read, cached);
              if (hint.update === undefined || match('PATCH', path) === undefined) return;
              const patch = (headers: Record<string, string>): TargetRequest => ({
                method: 'PATCH',
                path,
                headers: { ...bearer(principals.a), 'content-type': 'application/json', ...headers },
                body: JSON.stringify(hint.update),
              });
              const stale = await send(patch({ 'if-match': '"certainly-stale"' }));
              if (stale.status !== 412)
                fail(
                  'a PATCH with a stale If-Match did not get 412',
                  patch({ 'if-match': '"certainly-stale"' }),
                  stale,
                );
              const unchanged = await send(read);
              if (unchanged.text !== got.text) fail('a refused PATCH changed the resource', read, unchanged);
              const blind = await send(patch({}));
              if (blind.status !== 428) fail('a PATCH without If-Match did not get 428', patch({}), blind);
              const applied = await send(patch({ 'if-match': etag }));
              if (applied.status !== 200)
                fail('a PATCH with the current ETag failed', patch({ 'if-match': etag }), applied);
              const changed = await send(read);
              if (changed.headers.etag === etag)
                fail('the ETag did not change when the resource did', read, changed);
            },
            1,
          ),
      },
      {
        name: `PATCH and DELETE on what POST ${hint.path} makes are idempotent`,
        check: () =>
          run(
            fc.constant(null),
            async () => {
              const path = pathOf(await mustCreate(hint, principals.a));
              const read: TargetRequest = { method: 'GET', path, headers: bearer(principals.a) };
              if (hint.update !== undefined && match('PATCH', path) !== undefined) {
                const twice: TargetResponse[] = [];
                for (let i = 0; i < 2; i++) {
                  const etag = (await send(read)).headers.etag;
                  const request: TargetRequest = {
                    method: 'PATCH',
                    path,
                    headers: {
                      ...bearer(principals.a),
                      'content-type': 'application/json',
                      ...(etag ? { 'if-match': etag } : {}),
                    },
                    body: JSON.stringify(hint.update),
                  };
                  await send(request);
                  twice.push(await send(read));
                }
                if (attributesOf(twice[0]!) !== attributesOf(twice[1]!))
                  fail('the same PATCH twice left different states', read, twice[1]);
              }
              if (match('DELETE', path) === undefined) return;
              const del: TargetRequest = { method: 'DELETE', path, headers: bearer(principals.a) };
              const first = await send(del);
              const second = await send(del);
              if (first.status !== second.status)
                fail(`DELETE answered ${first.status} then ${second.status}`, del, second);
              if (first.status >= 300) return;
              const gone = await send(read);
              if (gone.status !== 404 && gone.status !== 410)
                fail('the resource is still there after DELETE', read, gone);
            },
            1,
          ),
      },
      {
        name: `what POST ${hint.path} makes for one user is invisible to another, as if missing`,
        check: () =>
          run(
            fc.constant(null),
            async () => {
              const path = pathOf(await mustCreate(hint, principals.a));
              const id = idOf(path);
              const missingId = `${id}9999999`;
              const paths = [
                [path, path.replace(new RegExp(`${escapeRegExp(id)}$`), missingId)],
                ...(options.subjects && hint.nested
                  ? hint
                      .nested(id, options.subjects.a)
                      .map((p) => [p, p.replace(new RegExp(`${escapeRegExp(id)}$`), missingId)])
                  : []),
              ] as const;
              for (const [owned, missing] of paths) {
                const foreign: TargetRequest = { method: 'GET', path: owned, headers: bearer(principals.b) };
                const theirs = await send(foreign);
                const absent = await send({ method: 'GET', path: missing, headers: bearer(principals.b) });
                if (theirs.status < 400) fail("another user's resource was served", foreign, theirs);
                if (
                  theirs.status !== absent.status ||
                  normalized(theirs.text, id) !== normalized(absent.text, missingId)
                ) {
                  fail(
                    `another user's resource answers ${theirs.status}, a missing one ${absent.status}: they must look the same`,
                    foreign,
                    theirs,
                  );
                }
              }
            },
            1,
          ),
      },
    );
  }

  if (options.versions !== undefined && options.versions.length > 0) {
    const versions = options.versions;
    properties.push({
      name: 'every version the API lists is served or refused with 406, never silently another',
      check: () =>
        run(
          fc.tuple(
            requestArbitrary(document, {
              headers: bearer(principals.a),
              ...known,
              valid: true,
              operations: (op) => op.startsWith('GET '),
            }),
            fc.constantFrom(...versions),
          ),
          async ([g, listed]) => {
            const request = fromGenerated(g);
            // Each request is asked in one listed version and in one the API does not list.
            for (const version of [listed, UNKNOWN_VERSION]) await askVersion(request, version);
          },
        ),
    });
    async function askVersion(request: TargetRequest, version: string) {
      const asked = {
        ...request,
        headers: { ...request.headers, accept: `application/vnd.api+json;version=${version}` },
      };
      const response = await send(asked);
      if (response.status >= 300 && response.status !== 406) return;
      // An unknown version answered 2xx by an operation whose representation depends on the
      // version asked (the listed versions answer differently, or one is refused) is another
      // version served silently; an operation that answers every version alike is not versioned.
      if (version === UNKNOWN_VERSION && response.status < 300) {
        const answers = await Promise.all(
          versions.map((v) =>
            send({
              ...request,
              headers: { ...request.headers, accept: `application/vnd.api+json;version=${v}` },
            }),
          ),
        );
        const negotiated =
          answers.some((a) => a.status === 406) || new Set(answers.map((a) => a.text)).size > 1;
        if (negotiated) fail('an unknown version was served', asked, response);
      }
      if (response.status === 406) return;
      const served =
        /version=("?)(\w+)\1/.exec(response.headers['content-type'] ?? '')?.[2] ??
        response.headers['api-version'];
      if (served !== undefined && served !== version)
        fail(`version ${version} was asked and ${served} served`, asked, response);
    }
  }
  const deprecated = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) =>
      typeof op === 'object' && op !== null && (op as { deprecated?: boolean }).deprecated === true
        ? [`${method.toUpperCase()} ${path}`]
        : [],
    ),
  );
  if (deprecated.length > 0) {
    properties.push({
      name: 'deprecated operations announce Deprecation, Sunset and a successor Link',
      check: () =>
        run(
          requestArbitrary(document, {
            headers: bearer(principals.a),
            ...known,
            valid: true,
            operations: (op) => deprecated.includes(op),
          }),
          async (g) => {
            const request = fromGenerated(g);
            const response = await send(request);
            if (response.status >= 300) return;
            for (const name of ['deprecation', 'sunset']) {
              if (response.headers[name] === undefined)
                fail(`a deprecated operation answered without ${name}`, request, response);
            }
            if (!/rel="?successor-version/.test(response.headers.link ?? ''))
              fail('a deprecated operation answered without a successor Link', request, response);
          },
        ),
    });
  }
  if (options.moved !== undefined && options.moved.length > 0) {
    const moved = options.moved;
    properties.push({
      name: 'moved URLs redirect to their new place, keeping the query',
      check: () =>
        run(fc.tuple(fc.constantFrom(...moved), hostileQuery()), async ([{ from, to }, query]) => {
          const request: TargetRequest = {
            method: 'GET',
            path: fill(from),
            query,
            headers: bearer(principals.a),
          };
          const response = await send(request);
          if (response.status !== 308 && response.status !== 301)
            fail(`a moved URL answered ${response.status}`, request, response);
          const location = new URL(response.headers.location ?? '', 'http://x');
          // The same query, whatever the percent-encoding of its characters.
          const same = new URLSearchParams(query).toString() === location.searchParams.toString();
          if (location.pathname !== fill(to) || !same) {
            fail(`the redirect does not lead to ${fill(to)}?${query}`, request, response);
          }
        }),
    });
  }
  properties.push({
    name: 'rate-limited operations announce RateLimit and RateLimit-Policy, and a 429 carries Retry-After',
    check: () =>
      run(anyRequest, async (g) => {
        const request = fromGenerated(g);
        // The same request in a burst, as a client retrying would send it: every answer is checked.
        for (let i = 0; i < RATE_BURST; i++) await checkRateHeaders(request, await send(request));
      }),
  });
  async function checkRateHeaders(request: TargetRequest, response: TargetResponse) {
    const operation = match(request.method, request.path);
    // Rate-limited: the document requires RateLimit on the operation's 2xx answers. Wherever
    // one of the two fields is sent, the other comes with it (draft-ietf-httpapi-ratelimit-headers).
    const declared =
      operation !== undefined &&
      Object.entries(operation.operation.responses).some(
        ([status, r]) =>
          status.startsWith('2') &&
          Object.entries(r.headers ?? {}).some(
            ([h, header]) =>
              h.toLowerCase() === 'ratelimit' && (header as { required?: boolean }).required === true,
          ),
      );
    const sent = ['ratelimit', 'ratelimit-policy'].filter((h) => response.headers[h] !== undefined);
    if ((declared && response.status < 300 && sent.length < 2) || sent.length === 1) {
      fail('a rate-limited operation answered without RateLimit and RateLimit-Policy', request, response);
    }
    if (response.status === 429 && response.headers['retry-after'] === undefined)
      fail('a 429 without Retry-After', request, response);
  }
  return properties.map((p) => ({
    name: p.name,
    check: () => p.check().catch((e: unknown) => Promise.reject(withSeed(e, seed))),
  }));
}

/** Run every property once, in order, and report each. */
export async function checkConventions(options: KitOptions): Promise<PropertyReport[]> {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const reports: PropertyReport[] = [];
  for (const property of conventionProperties({ ...options, seed })) {
    try {
      await property.check();
      reports.push({ name: property.name, passed: true, seed });
    } catch (error) {
      reports.push({ name: property.name, passed: false, seed, message: (error as Error).message });
    }
  }
  return reports;
}

/**
 * fast-check reports the shrunk input and keeps what the predicate threw as the `cause`: the
 * message carries both, the violation first, and the random seed that replays it.
 */
function withSeed(error: unknown, seed: number): Error {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? error.cause : undefined;
  const why = cause instanceof Error ? `${cause.message}\n` : '';
  return new Error(`${why}${message.includes('seed') ? message : `${message}\n(seed ${seed})`}`);
}

function attributesOf(response: TargetResponse): string {
  try {
    return JSON.stringify(
      (JSON.parse(response.text) as { data?: { attributes?: unknown } }).data?.attributes ?? null,
    );
  } catch {
    return response.text;
  }
}

/** Error bodies name the id asked for; compare them with the id taken out. */
function normalized(text: string, id: string): string {
  return text
    .split(id)
    .join('<id>')
    .replace(/"id":"[^"]*"/g, '"id":"<error-id>"');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function fill(template: string): string {
  return template.replace(/\{[^}]+\}/g, '1');
}

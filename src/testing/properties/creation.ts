import type { OpenApiDocument } from '../../openapi/types.js';
import { NotApplicable } from '../failure.js';
import { freshValues } from '../fresh-values.js';
import type { operationMatcher } from '../operation-matcher.js';
import type { TargetRequest, TargetResponse } from '../target.js';

/** A resource the kit may create to check writes, replays, validators and ownership. */
export interface CreateHint {
  /**
   * The creating operation's path (`/orders`), POSTed with `body`; a nested one names its parents'
   * parameters (`/projects/{id}/tasks`): the kit fills each by creating the parent (a create whose
   * path is `/projects`), else with the creating user's subject (`/users/{id}/notes`).
   */
  readonly path: string;
  /**
   * The body; members that name something (an anchored `pattern`, a `uuid` or `email` format in
   * the operation's schema) are drawn afresh for every create, so that unique fields stay unique.
   */
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

/** One resource to create: where it is POSTed (parents filled in) and its body. */
interface Creation {
  readonly hint: CreateHint;
  readonly path: string;
  readonly body: unknown;
  /** A parameter of the path was filled with the user's subject, a guess a 404 refutes. */
  readonly guessed: boolean;
}

/** Creates answered 409 (a unique member taken) drawn afresh before the kit reports it. */
const CONFLICT_REDRAWS = 2;

/** How the properties create resources (see {@link creations}). */
export interface Creations {
  /**
   * A new resource to create as `token`: the hint's path with its parents' parameters filled (a
   * parent created for it), and its body with fresh values in the members that name something.
   */
  creation(hint: CreateHint, token: string): Promise<Creation>;
  /** POST the creation's body (or `body`) as `token`, with an Idempotency-Key when given. */
  create(
    creation: Creation,
    token: string,
    key?: string,
    body?: unknown,
  ): Promise<{ request: TargetRequest; response: TargetResponse; location: string | undefined }>;
  /**
   * Create and return the new resource's `Location`; a failure when it does not answer 201 with
   * Location, not applicable when the principal may not create (401, 403).
   */
  mustCreate(hint: CreateHint, token: string): Promise<string>;
}

/** What creating needs from the kit's context. */
export interface CreationOptions {
  readonly document: OpenApiDocument;
  readonly principals: { readonly a: string; readonly b: string };
  readonly subjects: { readonly a: string; readonly b: string } | undefined;
  readonly creates: readonly CreateHint[];
  readonly match: ReturnType<typeof operationMatcher>;
  send(request: TargetRequest): Promise<TargetResponse>;
  fail(what: string, request: TargetRequest, response?: TargetResponse): never;
}

/**
 * Creating resources against a live server, run after run: nested paths get their parents, members
 * that name something fresh values (`freshValues`), and a 409 another draw.
 */
export function creations(options: CreationOptions): Creations {
  const { document, principals, subjects, match, send } = options;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  // Values drawn for members that name something, in this run: never drawn twice.
  const taken = new Set<string>();

  const freshBody = (hint: CreateHint, path: string, body: unknown): unknown => {
    const requestBody = match('POST', path)?.operation.requestBody;
    const schema = requestBody?.content?.[hint.contentType ?? 'application/json']?.schema;
    return schema === undefined ? body : freshValues(body, schema, document, taken);
  };
  const subjectFor = (token: string): string | undefined =>
    token === principals.a ? subjects?.a : token === principals.b ? subjects?.b : undefined;
  /** The hint's path with each parameter filled: by a parent made for it, else the user's subject. */
  const resolvedPath = async (hint: CreateHint, token: string) => {
    let path = '';
    let guessed = false;
    const segments = hint.path.split('/').filter(Boolean);
    for (const [i, segment] of segments.entries()) {
      if (!/^\{[^}/]+\}$/.test(segment)) {
        path += `/${segment}`;
        continue;
      }
      const template = `/${segments.slice(0, i).join('/')}`;
      const parent = options.creates.find((c) => c.path.replace(/\/$/, '') === template);
      const subject = subjectFor(token);
      if (parent !== undefined) path = pathOf(await mustCreate(parent, token));
      else if (subject !== undefined) {
        path += `/${encodeURIComponent(subject)}`;
        guessed = true;
      } else
        throw new NotApplicable(
          `POST ${hint.path}: nothing fills ${segment} (no create of ${template} in the document, and no subject known for the token)`,
        );
    }
    return { path: hint.path.endsWith('/') ? `${path}/` : path, guessed };
  };
  const creation: Creations['creation'] = async (hint, token) => {
    const { path, guessed } = await resolvedPath(hint, token);
    return { hint, path, body: freshBody(hint, path, hint.body), guessed };
  };
  const create: Creations['create'] = async (made, token, key, body = made.body) => {
    const request: TargetRequest = {
      method: 'POST',
      path: made.path,
      headers: {
        ...bearer(token),
        'content-type': made.hint.contentType ?? 'application/json',
        ...(key ? { 'idempotency-key': key } : {}),
      },
      body: JSON.stringify(body),
    };
    const response = await send(request);
    return { request, response, location: response.headers.location };
  };
  async function mustCreate(hint: CreateHint, token: string): Promise<string> {
    let target = await creation(hint, token);
    let made = await create(target, token, crypto.randomUUID());
    // A 409 is a unique member already taken (by an earlier run, or another client): draw again.
    for (let redraw = 0; made.response.status === 409 && redraw < CONFLICT_REDRAWS; redraw++) {
      target = await creation(hint, token);
      made = await create(target, token, crypto.randomUUID());
    }
    if (made.response.status === 401 || made.response.status === 403)
      throw new NotApplicable(
        `POST ${hint.path} answers ${made.response.status}: the principal may not create`,
      );
    if (made.response.status === 404 && target.guessed)
      throw new NotApplicable(
        `POST ${target.path} answers 404: the user's subject does not name a parent of ${hint.path} (pass the create with --create)`,
      );
    if (made.response.status !== 201 || made.location === undefined)
      return options.fail(
        made.response.status === 409
          ? `creating the resource did not answer 201 with Location (409 ${CONFLICT_REDRAWS + 1} times, with fresh values in the members the schema gives an anchored pattern or a uuid or email format: does a member without one have to be unique?)`
          : 'creating the resource did not answer 201 with Location',
        made.request,
        made.response,
      );
    return made.location;
  }
  return { creation, create, mustCreate };
}

/** The path of a `Location` (absolute or relative). */
export const pathOf = (location: string): string => new URL(location, 'http://x').pathname;

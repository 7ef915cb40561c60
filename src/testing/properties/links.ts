import fc from 'fast-check';
import { resolveRef } from '../../openapi/refs.js';
import type { OpenApiLink, OpenApiOperation } from '../../openapi/types.js';
import { operationsOf } from '../discover.js';
import { exampleBodies } from '../example-values.js';
import { NotApplicable } from '../failure.js';
import type { TargetRequest, TargetResponse } from '../target.js';
import { filledWithSubject, type KitContext } from './context.js';
import type { PropertyFactory } from './property.js';

/** An operation whose response declares Link Objects, and the status that carries them. */
interface Linking {
  readonly path: string;
  readonly method: string;
  readonly status: string;
  readonly links: Readonly<Record<string, OpenApiLink>>;
}

/** A link to follow: the relation, the request as the owner would send it, and what the document says. */
interface Followed {
  readonly relation: string;
  readonly request: TargetRequest;
  readonly operation: OpenApiOperation | undefined;
}

/**
 * The links of a response lead somewhere (OpenAPI 3.1 section 4.8.20, Link Object; RFC 8288 for
 * the relations): the kit makes the request of each operation whose response declares `links`, then
 * follows every link of the response document's top-level `links` and every Link Object, with the
 * target operation's method and its parameters from the runtime expressions. Each answers the owner
 * with a 2xx, and another user with a 2xx or a 401, 403 or 404 the target operation documents.
 */
export const linksProperty: PropertyFactory = (ctx) =>
  linkingOperations(ctx).map((linking) => ({
    id: 'links',
    name: `the links of ${linking.method.toUpperCase()} ${linking.path} (${Object.keys(linking.links).join(', ')}) lead to operations of the document that answer`,
    check: () =>
      ctx.run(
        fc.constant(null),
        async () => {
          const { request, response } = await origin(ctx, linking);
          const body = parsed(response.text);
          for (const followed of toFollow(ctx, linking, body, request, response)) {
            if (followed.operation === undefined) {
              const answer = await ctx.send(followed.request);
              ctx.fail(
                `links.${followed.relation} leads to ${followed.request.method} ${followed.request.path}, no operation of the document`,
                followed.request,
                answer,
              );
            }
            const owner = await ctx.send(await withBody(ctx, followed, ctx.principals.a));
            if (owner.status < 200 || owner.status > 299)
              ctx.fail(
                `following links.${followed.relation} as its owner did not answer 2xx`,
                followed.request,
                owner,
              );
            const asB = await withBody(ctx, followed, ctx.principals.b);
            const other = await ctx.send(asB);
            const documented = ['401', '403', '404'].filter((s) => s in followed.operation!.responses);
            if ((other.status < 200 || other.status > 299) && !documented.includes(String(other.status)))
              ctx.fail(
                `following links.${followed.relation} as another user answered ${other.status}, neither 2xx nor a documented ${documented.join(', ') || '401, 403 or 404'}`,
                asB,
                other,
              );
          }
        },
        1,
      ),
  }));

/** Every operation with a response that declares Link Objects (the first 2xx that does). */
function linkingOperations(ctx: KitContext): Linking[] {
  const found: Linking[] = [];
  for (const [path, method, operation] of operationsOf(ctx.document)) {
    for (const [status, raw] of Object.entries(operation.responses)) {
      const links = resolveRef(ctx.document, raw).links;
      if (!/^2\d\d$/.test(status) || links === undefined || Object.keys(links).length === 0) continue;
      found.push({ path, method, status, links });
      break;
    }
  }
  return found;
}

/** The request the kit knows for the operation: its create (body from examples), or a GET of its path. */
async function origin(ctx: KitContext, linking: Linking) {
  const a = ctx.principals.a;
  if (linking.method === 'post') {
    const hint = ctx.creates.find((c) => c.path === linking.path);
    if (hint === undefined) throw new NotApplicable(`POST ${linking.path} is not among the creates`);
    const made = await ctx.create(await ctx.creation(hint, a), a, crypto.randomUUID());
    if (made.response.status !== Number(linking.status))
      ctx.fail(`creating did not answer ${linking.status}`, made.request, made.response);
    return made;
  }
  const path = filledWithSubject(ctx, linking.path);
  if (linking.method !== 'get' || path === undefined)
    throw new NotApplicable(`${linking.method.toUpperCase()} ${linking.path}: the kit makes no such request`);
  const request: TargetRequest = { method: 'GET', path, headers: ctx.bearer(a) };
  const response = await ctx.send(request);
  if (response.status !== Number(linking.status))
    ctx.fail(`the request did not answer ${linking.status}`, request, response);
  return { request, response };
}

/**
 * The links to follow: those of the document's top-level `links` (the Link Object of the same
 * relation gives the method, else GET), and the Link Objects the document does not carry, resolved.
 */
function toFollow(
  ctx: KitContext,
  linking: Linking,
  body: unknown,
  request: TargetRequest,
  response: TargetResponse,
): Followed[] {
  const followed: Followed[] = [];
  const carried = (body as { links?: Record<string, unknown> } | undefined)?.links ?? {};
  for (const [relation, value] of Object.entries(carried)) {
    const href = typeof value === 'string' ? value : (value as { href?: unknown } | null)?.href;
    if (typeof href !== 'string') continue;
    const object = linking.links[relation];
    const target = object === undefined ? undefined : targetOf(ctx, object);
    const method = target?.method ?? 'GET';
    const { path, query } = relative(ctx, href);
    const matched = ctx.match(method, path);
    const req: TargetRequest = {
      method,
      path,
      ...(query ? { query } : {}),
      headers: ctx.bearer(ctx.principals.a),
    };
    if (target !== undefined && matched !== undefined && matched.operation !== target.operation)
      ctx.fail(
        `links.${relation} leads to ${method} ${path}, not to ${object!.operationId ?? object!.operationRef} as its Link Object says`,
        request,
        response,
      );
    followed.push({ relation, request: req, operation: matched?.operation });
  }
  for (const [relation, object] of Object.entries(linking.links)) {
    if (relation in carried) continue;
    const target = targetOf(ctx, object);
    if (target === undefined)
      ctx.fail(`the Link Object ${relation} names no operation of the document`, request, response);
    const resolved = resolvedRequest(ctx, relation, object, target, body, request, response);
    followed.push({ relation, request: resolved, operation: target.operation });
  }
  return followed;
}

/** The operation a Link Object names by `operationId`. */
function targetOf(ctx: KitContext, link: OpenApiLink) {
  const found = operationsOf(ctx.document).find(
    ([, , operation]) => operation.operationId === link.operationId,
  );
  return found === undefined
    ? undefined
    : { path: found[0], method: found[1].toUpperCase(), operation: found[2] };
}

/** The target's path and query, each parameter a constant or a `$response.body#` JSON Pointer. */
function resolvedRequest(
  ctx: KitContext,
  relation: string,
  link: OpenApiLink,
  target: { path: string; method: string },
  body: unknown,
  request: TargetRequest,
  response: TargetResponse,
): TargetRequest {
  const values: Record<string, string> = {};
  for (const [name, expression] of Object.entries(link.parameters ?? {})) {
    const value = evaluated(expression, body);
    if (value === undefined)
      ctx.fail(
        `the Link Object ${relation}: ${name} (${String(expression)}) finds nothing in the response`,
        request,
        response,
      );
    values[name] = String(value);
  }
  const path = target.path.replace(/\{([^}/]+)\}/g, (_, name: string) =>
    encodeURIComponent(values[`path.${name}`] ?? values[name] ?? ''),
  );
  const query = new URLSearchParams(
    Object.entries(values).flatMap(([name, value]) =>
      name.startsWith('query.') ? [[name.slice(6), value]] : [],
    ),
  ).toString();
  return { method: target.method, path, ...(query ? { query } : {}), headers: ctx.bearer(ctx.principals.a) };
}

/** A runtime expression (OpenAPI 3.1 section 4.8.20.4) into the body, or the constant itself. */
function evaluated(expression: unknown, body: unknown): unknown {
  if (typeof expression !== 'string' || !expression.startsWith('$')) return expression;
  const pointer = /^\$response\.body#(.*)$/.exec(expression)?.[1];
  if (pointer === undefined) return undefined;
  let value = body;
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

/** A link's URL as the target's path and query (the target's own prefix taken off). */
function relative(ctx: KitContext, href: string): { path: string; query: string } {
  const base = new URL(ctx.base ?? 'http://target.test');
  const url = new URL(href, `${base.origin}${base.pathname.replace(/\/?$/, '/')}`);
  const prefix = base.pathname.replace(/\/$/, '');
  const path =
    prefix !== '' && url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : url.pathname;
  return { path, query: url.search.slice(1) };
}

/** The request as `token`, with a body built for a target that takes one, and a fresh Idempotency-Key where declared. */
async function withBody(ctx: KitContext, followed: Followed, token: string): Promise<TargetRequest> {
  const operation = followed.operation!;
  const headers: Record<string, string> = { ...followed.request.headers, ...ctx.bearer(token) };
  const parameters = (operation.parameters ?? []).map((p) => resolveRef(ctx.document, p));
  if (parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'))
    headers['idempotency-key'] = crypto.randomUUID();
  const requestBody =
    operation.requestBody === undefined ? undefined : resolveRef(ctx.document, operation.requestBody);
  if (requestBody === undefined) return { ...followed.request, headers };
  const hint = ctx.creates.find((c) => ctx.match('POST', followed.request.path)?.path === c.path);
  if (hint !== undefined) {
    const made = await ctx.creation(hint, token);
    return {
      ...followed.request,
      headers: { ...headers, 'content-type': hint.contentType ?? 'application/json' },
      body: JSON.stringify(made.body),
    };
  }
  const type = Object.keys(requestBody.content).find((t) => /json/.test(t));
  if (type === undefined)
    throw new NotApplicable(`${followed.request.method} ${followed.request.path}: no JSON body to send`);
  const example = exampleBodies(requestBody.content[type]!, ctx.document)[0];
  return {
    ...followed.request,
    headers: { ...headers, 'content-type': type },
    body: JSON.stringify(example),
  };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

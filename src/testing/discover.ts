import { resolveRef } from '../openapi/refs.js';
import {
  type JsonSchema,
  type OpenApiDocument,
  type OpenApiOperation,
  pathItemOperations,
} from '../openapi/types.js';
import { PATH_VERSION_SEGMENT } from '../versioning/path-version.js';
import { changedValue, exampleBodies, simplestValue } from './example-values.js';
import type { CreateHint, MovedUrl } from './properties/context.js';

/** What the kit reads from an OpenAPI document when it is not told. */
export interface Discovered {
  readonly creates: readonly CreateHint[];
  readonly versions: readonly string[];
  readonly moved: readonly MovedUrl[];
}

const VERSION_PARAMETER = /;\s*version="?(\w+)/;

type Operations = [path: string, method: string, operation: OpenApiOperation][];

/** Every operation of a document, as `[path, method, operation]`, path items behind a `$ref` resolved. */
export function operationsOf(document: OpenApiDocument): Operations {
  return Object.entries(document.paths ?? {}).flatMap(([path, rawItem]) => {
    const item = resolveRef(document, rawItem);
    return pathItemOperations(item).map(
      ([method, operation]) => [path, method, operation] as Operations[number],
    );
  });
}

/** A JSON media type of a request body, `application/json` first. */
function jsonMedia(operation: OpenApiOperation, document: OpenApiDocument) {
  const body = operation.requestBody;
  const content = (body === undefined ? undefined : resolveRef(document, body).content) ?? {};
  const type =
    'application/json' in content ? 'application/json' : Object.keys(content).find((t) => /json/.test(t));
  return type === undefined ? undefined : { type, media: content[type]! };
}

/** `/orders/{id}` for `/orders`: the item path of a collection, if the document has one. */
function itemTemplate(operations: Operations, collection: string, method: string): string | undefined {
  const prefix = `${collection.replace(/\/$/, '')}/`;
  return operations.find(
    ([p, m]) => m === method && p.startsWith(prefix) && /^\{[^}/]+\}$/.test(p.slice(prefix.length)),
  )?.[0];
}

/**
 * The resources the document lets a client create: every POST with a JSON body whose collection has
 * an item path to read back (`POST /orders` and `GET /orders/{id}`; nested, `POST /projects/{id}/tasks`
 * and `GET /projects/{id}/tasks/{task_id}`). The body is the document's
 * example or the simplest value its schema accepts; the other body one member apart; the update a
 * PATCH body of the item path that changes something; nested paths the GET templates that end in
 * `/{owner}/<collection>/{id}` (`/users/{id}/orders/{order_id}`).
 */
function discoverCreates(document: OpenApiDocument, operations: Operations): CreateHint[] {
  const hints: CreateHint[] = [];
  for (const [path, method, operation] of operations) {
    // A nested collection (`/projects/{id}/tasks`) too: the kit fills its parents when it creates.
    if (method !== 'post' || path.endsWith('}') || path.endsWith('}/')) continue;
    const json = jsonMedia(operation, document);
    const item = itemTemplate(operations, path, 'get');
    if (json === undefined || item === undefined) continue;
    const body = exampleBodies(json.media, document)[0];
    const otherBody =
      json.media.schema === undefined ? undefined : changedValue(body, json.media.schema, document);
    const patchTemplate = itemTemplate(operations, path, 'patch');
    const patch = operations.find(([p, m]) => p === patchTemplate && m === 'patch')?.[2];
    const patchJson = patch === undefined ? undefined : jsonMedia(patch, document);
    const update = patchJson === undefined ? undefined : changingUpdate(body, patchJson.media, document);
    const collection = path.split('/').filter(Boolean).at(-1);
    const nested = operations
      .filter(([p, m]) => m === 'get' && collection !== undefined && p !== item)
      .map(([p]) => new RegExp(`^(/.+)/\\{[^}/]+\\}/${collection}/\\{[^}/]+\\}$`).exec(p)?.[1])
      .filter((prefix): prefix is string => prefix !== undefined);
    hints.push({
      path,
      body,
      ...(json.type === 'application/json' ? {} : { contentType: json.type }),
      ...(otherBody === undefined ? {} : { otherBody }),
      ...(update === undefined ? {} : { update }),
      ...(nested.length === 0
        ? {}
        : {
            nested: (id: string, sub: string) =>
              nested.map((prefix) => `${prefix}/${sub}/${collection}/${id}`),
          }),
    });
  }
  return hints;
}

/** A PATCH body that changes the created resource: the example, or the simplest one, changed where it would not. */
function changingUpdate(
  created: unknown,
  media: Parameters<typeof exampleBodies>[0],
  document: OpenApiDocument,
): unknown {
  let update = exampleBodies(media, document)[0];
  const members = (resolveRef(document, media.schema ?? {}) as { properties?: Record<string, JsonSchema> })
    .properties;
  const first = Object.entries(members ?? {})[0];
  // Nothing required (a merge patch): an empty body changes nothing; send the first member.
  if (
    typeof update === 'object' &&
    update !== null &&
    Object.keys(update).length === 0 &&
    first !== undefined
  )
    update = { [first[0]]: simplestValue(first[1], document) };
  if (typeof update !== 'object' || update === null || typeof created !== 'object' || created === null)
    return update;
  const same = Object.entries(update).every(
    ([name, value]) => JSON.stringify((created as Record<string, unknown>)[name]) === JSON.stringify(value),
  );
  if (!same || media.schema === undefined) return update;
  return changedValue(update, media.schema, document) ?? update;
}

/** Versions from `/vN` path segments and `version=` media type parameters (responses, `Accept` values). */
function discoverVersions(document: OpenApiDocument, operations: Operations): string[] {
  const found = new Set<string>();
  const add = (text: unknown) => {
    const version = typeof text === 'string' ? VERSION_PARAMETER.exec(text)?.[1] : undefined;
    if (version !== undefined) found.add(version);
  };
  for (const [path, , operation] of operations) {
    const segment = PATH_VERSION_SEGMENT.exec(path)?.[1];
    if (segment !== undefined) found.add(segment);
    for (const response of Object.values(operation.responses ?? {}))
      for (const type of Object.keys(resolveRef(document, response).content ?? {})) add(type);
    for (const raw of operation.parameters ?? []) {
      const parameter = resolveRef(document, raw);
      if (parameter.in !== 'header' || parameter.name.toLowerCase() !== 'accept') continue;
      const schema = (parameter.schema ?? {}) as { enum?: unknown[]; const?: unknown; examples?: unknown[] };
      const examples = parameter as { example?: unknown; examples?: Record<string, { value?: unknown }> };
      [...(schema.enum ?? []), schema.const, ...(schema.examples ?? []), examples.example].forEach(add);
      for (const example of Object.values(examples.examples ?? {})) add(resolveRef(document, example).value);
    }
  }
  return [...found].sort((a, b) => Number(a) - Number(b));
}

/** Moved URLs: operations that declare a 301 or 308 (RFC 9110 section 15.4), with `Location`'s path when given. */
function discoverMoved(document: OpenApiDocument, operations: Operations): MovedUrl[] {
  return operations.flatMap(([path, method, operation]) => {
    if (method !== 'get') return [];
    const redirect = operation.responses?.['308'] ?? operation.responses?.['301'];
    if (redirect === undefined) return [];
    const headers = resolveRef(document, redirect).headers ?? {};
    const location = Object.entries(headers).find(([name]) => name.toLowerCase() === 'location')?.[1];
    const schema = (location === undefined ? {} : (resolveRef(document, location).schema ?? {})) as {
      const?: unknown;
      examples?: unknown[];
    };
    const to = [schema.const, ...(schema.examples ?? [])].find(
      (v) => typeof v === 'string' && v.startsWith('/'),
    );
    return [{ from: path, ...(typeof to === 'string' ? { to } : {}) }];
  });
}

/** Everything the kit reads from the document (see {@link Discovered}). */
export function discover(document: OpenApiDocument): Discovered {
  const operations = operationsOf(document);
  return {
    creates: discoverCreates(document, operations),
    versions: discoverVersions(document, operations),
    moved: discoverMoved(document, operations),
  };
}

/**
 * The `sub` claim of a JWT (RFC 7519 section 4.1.2), read without verifying it: the kit only needs
 * to know whose token it holds. `undefined` for a token that is not a JWT.
 */
export function subjectOf(token: string): string | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { sub?: unknown };
    return typeof claims.sub === 'string' && claims.sub !== '' ? claims.sub : undefined;
  } catch {
    return undefined;
  }
}

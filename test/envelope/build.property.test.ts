import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectIncluded, dataDocument, resourceObject, toMany, toOne } from '../../src/envelope/build.js';
import type { ResourceIdentifier, ResourceObject } from '../../src/envelope/types.js';
import { assertJsonApi } from '../support/schemas.js';

const TYPES = ['books', 'authors', 'reviews'] as const;
const key = (r: ResourceIdentifier) => `${r.type}/${r.id}`;

const identifier = fc.record({ type: fc.constantFrom(...TYPES), id: fc.stringMatching(/^[0-9]{1,3}$/) });
/** JSON:API member names (the schema's pattern) other than the reserved `type` and `id`. */
const memberName = fc
  .stringMatching(/^[a-zA-Z0-9](?:[-\w]{0,8}[a-zA-Z0-9])?$/)
  .filter((n) => n !== 'type' && n !== 'id');
const jsonValue = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const resource: fc.Arbitrary<ResourceObject> = fc
  .record({
    id: identifier,
    attributes: fc.dictionary(memberName, jsonValue, { maxKeys: 4 }),
    toOne: fc.dictionary(memberName, fc.option(identifier, { nil: null }), { maxKeys: 2 }),
    toMany: fc.dictionary(memberName, fc.array(identifier, { maxLength: 3 }), { maxKeys: 2 }),
    links: fc.option(fc.constant({ self: '/x' }), { nil: undefined }),
  })
  .map(({ id, attributes, toOne: ones, toMany: manies, links }) => {
    const relationships = {
      ...Object.fromEntries(Object.entries(ones).map(([n, i]) => [n, toOne(i)])),
      ...Object.fromEntries(Object.entries(manies).map(([n, is]) => [n, toMany(is)])),
    };
    return resourceObject(id.type, id.id, attributes, {
      ...(Object.keys(relationships).length > 0 ? { relationships } : {}),
      ...(links ? { links } : {}),
    });
  });

const primary = fc.oneof(
  resource,
  fc.constant(null),
  fc.uniqueArray(resource, { selector: key, maxLength: 5 }),
);

describe('envelope properties', () => {
  it('every built document validates against the JSON:API schema', () => {
    fc.assert(
      fc.property(
        primary,
        fc.option(fc.array(resource, { maxLength: 8 }), { nil: undefined }),
        fc.option(fc.dictionary(memberName, jsonValue, { maxKeys: 3 }), { nil: undefined }),
        (data, included, meta) => {
          // `included` only makes sense beside data; JSON:API requires it be absent otherwise.
          const doc = dataDocument(data, {
            ...(included && data !== null ? { included } : {}),
            ...(meta ? { meta } : {}),
            links: { self: '/books?page=1' },
          });
          assertJsonApi(JSON.parse(JSON.stringify(doc)));
        },
      ),
    );
  });

  it('included holds each (type, id) once, never a primary one, and drops nothing else', () => {
    fc.assert(
      fc.property(primary, fc.array(resource, { maxLength: 12 }), (data, included) => {
        const doc = dataDocument(data, { included });
        const primaries = new Set((data === null ? [] : Array.isArray(data) ? data : [data]).map(key));
        const keys = (doc.included ?? []).map(key);
        expect(new Set(keys).size).toBe(keys.length);
        for (const k of keys) expect(primaries.has(k)).toBe(false);
        const expected = new Set(included.map(key).filter((k) => !primaries.has(k)));
        expect(new Set(keys)).toEqual(expected);
        // The first occurrence wins, in the given order.
        for (const r of doc.included ?? []) expect(r).toBe(included.find((i) => key(i) === key(r)));
      }),
    );
  });

  it('collectIncluded terminates on any graph and includes each reachable resource once, up to maxDepth', () => {
    const graph = fc.integer({ min: 1, max: 12 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        edges: fc.array(fc.array(fc.nat({ max: n - 1 }), { maxLength: 4 }), { minLength: n, maxLength: n }),
        resolvable: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
        roots: fc.uniqueArray(fc.nat({ max: n - 1 }), { minLength: 1, maxLength: n }),
        maxDepth: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(Number.POSITIVE_INFINITY)),
      }),
    );
    fc.assert(
      fc.property(graph, ({ n, edges, resolvable, roots, maxDepth }) => {
        const node = (i: number): ResourceObject =>
          resourceObject(
            i % 2 === 0 ? 'books' : 'authors',
            String(i),
            {},
            {
              relationships: {
                links: toMany(
                  edges[i]!.map((j) => ({ type: j % 2 === 0 ? 'books' : 'authors', id: String(j) })),
                ),
                first: toOne(edges[i]![0] === undefined ? null : { type: 'x', id: 'never-resolved' }),
              },
            },
          );
        let resolveCalls = 0;
        const included = collectIncluded(
          roots.map(node),
          (id) => {
            resolveCalls++;
            const i = Number(id.id);
            return Number.isInteger(i) && resolvable[i] ? node(i) : undefined;
          },
          maxDepth,
        );
        // Shortest distances from the roots, walking only through resources that resolve.
        const distance = new Map<number, number>(roots.map((r) => [r, 0]));
        const queue = [...roots];
        while (queue.length > 0) {
          const from = queue.shift()!;
          for (const to of edges[from]!) {
            if (distance.has(to) || !resolvable[to]) continue;
            distance.set(to, distance.get(from)! + 1);
            queue.push(to);
          }
        }
        const expected = [...distance].filter(([, d]) => d >= 1 && d <= maxDepth).map(([i]) => i);
        const ids = included.map((r) => Number(r.id));
        expect(new Set(ids).size).toBe(ids.length);
        expect(new Set(ids)).toEqual(new Set(expected));
        // Each identifier is resolved at most once, so the work is bounded by the graph's size.
        expect(resolveCalls).toBeLessThanOrEqual(n + 1);
      }),
    );
  });
});

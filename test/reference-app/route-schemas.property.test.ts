import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { isRight } from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { AnyCodec, RouteInfo } from '../../src/core/route.js';
import { type JsonSchema, toJsonSchema } from '../../src/validation/index.js';
import { referenceApp } from '../support/reference-app.js';

/**
 * Every codec the reference app declares (path parameters, query parameters, bodies), as
 * `app.routes()` lists them, against the JSON Schema 2020-12 derived from it: ajv compiles each
 * schema in strict mode, and for random values the codec and the schema agree on what is valid.
 */

type Part = { readonly where: string; readonly kind: 'params' | 'query' | 'body'; readonly codec: AnyCodec };

function partsOf(routes: readonly RouteInfo[]): Part[] {
  return routes.flatMap((route) => {
    const at = `${route.method} ${route.pattern}`;
    return [
      ...Object.entries(route.params).map(([name, codec]) => ({
        where: `${at} params.${name}`,
        kind: 'params' as const,
        codec,
      })),
      ...Object.entries(route.query ?? {}).map(([name, codec]) => ({
        where: `${at} query.${name}`,
        kind: 'query' as const,
        codec,
      })),
      ...(route.body === undefined
        ? []
        : [{ where: `${at} body`, kind: 'body' as const, codec: route.body.codec }]),
    ];
  });
}

/** Values near a schema: at and just past its bounds, its enum members and their neighbours. */
function near(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const s = schema as Record<string, unknown>;
  const any = fc.jsonValue({ maxDepth: 1 });
  if (depth > 3) return any;
  if (Array.isArray(s.enum)) {
    const members = s.enum as unknown[];
    const strings = members.filter((m): m is string => typeof m === 'string');
    return fc.oneof(
      fc.constantFrom(...members),
      fc.constantFrom(...strings.map((m) => `${m}x`), ...strings.map((m) => m.toUpperCase()), ''),
    );
  }
  const variants = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (variants !== undefined) return fc.oneof(...variants.map((v) => near(v, depth + 1)), any);
  switch (s.type) {
    case 'integer':
    case 'number': {
      const min = (s.minimum as number | undefined) ?? -100;
      const max = (s.maximum as number | undefined) ?? 100;
      const lo = Math.max(min - 2, Number.MIN_SAFE_INTEGER);
      const hi = Math.min(max + 2, Number.MAX_SAFE_INTEGER);
      return fc.oneof(
        fc.constantFrom(min, max, min - 1, max + 1, min + 0.5, -0),
        fc.integer({ min: lo, max: Math.min(hi, lo + 1000) }),
        fc.integer({ min: Math.max(lo, hi - 1000), max: hi }),
      );
    }
    case 'string': {
      const min = (s.minLength as number | undefined) ?? 0;
      const max = (s.maxLength as number | undefined) ?? 50;
      const patterns = [
        ...(typeof s.pattern === 'string' ? [s.pattern] : []),
        ...((s.allOf as JsonSchema[] | undefined) ?? []).flatMap((p) => {
          const pattern = (p as { pattern?: unknown }).pattern;
          return typeof pattern === 'string' ? [pattern] : [];
        }),
      ];
      const matching = patterns
        .filter((p) => p.startsWith('^'))
        .map((p) => fc.stringMatching(new RegExp(p, 'u')).filter((v) => v.length <= max + 1));
      return fc.oneof(
        fc.string({ minLength: Math.max(0, min - 1), maxLength: Math.min(max + 1, min + 8) }),
        fc.constantFrom(
          ' ',
          '\t',
          'a'.repeat(max),
          'a'.repeat(max + 1),
          'A'.repeat(max),
          'A'.repeat(max + 1),
        ),
        ...matching,
      );
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (s.items as JsonSchema | undefined) ?? {};
      return fc.array(near(items, depth + 1), { maxLength: 4 });
    }
    case 'object': {
      const properties = (s.properties as Record<string, JsonSchema> | undefined) ?? {};
      const required = new Set((s.required as string[] | undefined) ?? []);
      const record = fc.record(
        Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, near(p, depth + 1)])),
        { requiredKeys: [] },
      );
      // Mostly with every required member, sometimes without one, sometimes with one too many.
      return fc
        .tuple(record, fc.boolean(), fc.constantFrom<'all' | 'drop' | 'extra'>('all', 'all', 'drop', 'extra'))
        .chain(([value, _, mode]) =>
          fc.constantFrom(...Object.keys(properties), '').map((key) => {
            const out: Record<string, unknown> = { ...value };
            if (mode === 'all') for (const name of required) if (!(name in out)) return null;
            if (mode === 'drop') delete out[key];
            if (mode === 'extra') out.extra = key;
            return out;
          }),
        )
        .filter((v) => v !== null);
    }
    default:
      return any;
  }
}

/**
 * A query or path value as it travels: the OpenAPI form style the schema describes (a list joined by
 * commas, a number in decimal). `undefined` when the value is not of the schema's type (the wire has
 * no types: "5" and 5 are one string) or cannot be written unambiguously.
 */
function onTheWire(value: unknown, schema: JsonSchema): string | undefined {
  const type = (schema as { type?: unknown }).type;
  if (type === 'array') {
    if (!Array.isArray(value)) return undefined;
    if (!value.every((item) => typeof item === 'string' && !item.includes(','))) return undefined;
    return value.join(',');
  }
  if (type === 'integer' || type === 'number') return typeof value === 'number' ? String(value) : undefined;
  // An enum of strings (`oneOf`) names no type: its members are strings on the wire.
  const members = (schema as { enum?: unknown[] }).enum;
  const strings = type === 'string' || members?.every((m) => typeof m === 'string') === true;
  if (strings) return typeof value === 'string' ? value : undefined;
  return undefined;
}

/** A query or path value read back as its schema's type (the inverse of {@link onTheWire}). */
function fromTheWire(wire: string, schema: JsonSchema): unknown {
  const type = (schema as { type?: unknown }).type;
  if (type === 'array') return wire.split(',');
  // OpenAPI writes an integer parameter in decimal digits; a number may have a fraction and exponent.
  if (type === 'integer' && /^-?\d+$/.test(wire)) return Number(wire);
  if (type === 'number' && /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(wire)) return Number(wire);
  return wire;
}

const ajv = new Ajv2020({ strict: true, allErrors: false });
ajv.addFormat('date', true);
ajv.addFormat('int32', {
  type: 'number',
  validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
});
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });

describe('the reference app: schemas of every declared codec', () => {
  const { app } = referenceApp();
  const parts = partsOf(app.routes());

  it('declares the codecs of its bodies, queries and paths', () => {
    const kinds = new Set(parts.map((part) => part.kind));
    expect(kinds).toEqual(new Set(['query', 'body', ...(kinds.has('params') ? ['params'] : [])]));
    expect(parts.length).toBeGreaterThanOrEqual(12);
  });

  describe.each(parts.map((part) => [part.where, part] as const))('%s', (where, part) => {
    const schema = toJsonSchema(part.codec, { where });
    const validate = ajv.compile(schema);

    it('agrees with its schema on random values, arbitrary and near the schema', () => {
      const values = fc.oneof(fc.jsonValue({ maxDepth: 2 }), near(schema));
      fc.assert(
        fc.property(values, (value) => {
          if (part.kind === 'body') {
            expect({ value, valid: isRight(part.codec.decode(value)) }).toEqual({
              value,
              valid: validate(value),
            });
            return;
          }
          const wire = onTheWire(value, schema);
          fc.pre(wire !== undefined);
          expect({ wire, valid: isRight(part.codec.decode(wire)) }).toEqual({ wire, valid: validate(value) });
        }),
        { numRuns: 300 },
      );
    });

    if (part.kind !== 'body') {
      it('accepts exactly the strings whose form-style reading its schema accepts', () => {
        fc.assert(
          fc.property(fc.oneof(fc.string({ maxLength: 12 }), near(schema).map(String)), (wire) => {
            expect({ wire, valid: isRight(part.codec.decode(wire)) }).toEqual({
              wire,
              valid: validate(fromTheWire(wire, schema)),
            });
          }),
          { numRuns: 200 },
        );
      });
    }
  });
});

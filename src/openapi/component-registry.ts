import type { JsonSchema } from './types.js';

const REF = '#/components/schemas/';

/**
 * The document's named schemas: each added once under a unique name (a second, different schema for
 * the same name gets `Name2`), referenced with `$ref`. `used` keeps only what the paths reference,
 * directly or through other components: linters flag unused components.
 */
export class ComponentRegistry {
  private readonly schemas = new Map<string, JsonSchema>();
  private readonly names = new Map<string, string>();

  constructor(private readonly base: Readonly<Record<string, JsonSchema>>) {}

  /** A `$ref` to one of the base schemas (`ErrorDocument`). */
  static ref(name: string): JsonSchema {
    return { $ref: `${REF}${name}` };
  }

  /** A `$ref` to `schema`, registered as `name` (or `name2`, ... when that name holds another schema). */
  add(name: string, schema: JsonSchema): JsonSchema {
    const key = `${name}\u0000${JSON.stringify(schema)}`;
    let registered = this.names.get(key);
    if (registered === undefined) {
      registered = name;
      for (let n = 2; this.schemas.has(registered) || registered in this.base; n++)
        registered = `${name}${n}`;
      this.schemas.set(registered, schema);
      this.names.set(key, registered);
    }
    return { $ref: `${REF}${registered}` };
  }

  /** The components `roots` reference, directly or through each other, by name. */
  used(roots: unknown): Record<string, JsonSchema> {
    const all: Record<string, JsonSchema> = { ...this.base, ...Object.fromEntries(this.schemas) };
    const out: Record<string, JsonSchema> = {};
    const pending = [...refsIn(roots)];
    while (pending.length > 0) {
      const name = pending.pop()!;
      if (name in out || all[name] === undefined) continue;
      out[name] = all[name];
      pending.push(...refsIn(all[name]));
    }
    return Object.fromEntries(
      Object.keys(out)
        .sort()
        .map((name) => [name, out[name]!]),
    );
  }
}

function refsIn(value: unknown): Set<string> {
  const found = new Set<string>();
  const text = JSON.stringify(value) ?? '';
  for (const match of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) found.add(match[1]!);
  return found;
}

import type { OperationContract } from '../core/contract.js';
import type { DescribedRoute } from './described-route.js';
import { embedded } from './resource-schemas.js';
import type { JsonSchema, OpenApiParameter } from './types.js';
import { UNDECLARED_TEXT } from './undeclared-text.js';

/**
 * Header parameters OpenAPI 3.1 ignores (Parameter Object, `name`): media types belong in `content`, and
 * credentials in `security`. What a layer says about them goes into the operation's description.
 */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** The path parameter names of a pattern, in order. */
function paramNamesOf(pattern: string): string[] {
  return [...pattern.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

/**
 * An operation's parameters as the server parses them. A path segment is never empty. A list-valued
 * query parameter (`sort`, `filter[status]`, `fields[books]`) is declared `style: form, explode: true`
 * (OpenAPI 3.1, Parameter Object, Style Values: the default, stated), the repeated form generated clients
 * send on their defaults (`sort=-code&sort=name`); `decodeQuery` reads that, the comma-joined form
 * JSON:API spells (`sort=-code,name`) and the bracketed one (`sort[]=-code`) alike.
 */
export function parametersOf(
  route: DescribedRoute,
  applying: readonly OperationContract[],
  where: string,
): { readonly parameters: OpenApiParameter[]; readonly ignoredHeaders: readonly string[] } {
  const parameters: OpenApiParameter[] = [];
  for (const name of paramNamesOf(route.pattern)) {
    const codec = route.params?.[name];
    const schema =
      codec === undefined ? UNDECLARED_TEXT : embedded(codec, `${where}: path parameter ${name}`);
    parameters.push({ name, in: 'path', required: true, schema: nonEmpty(schema) });
  }
  for (const [name, codec] of Object.entries(route.query ?? {})) {
    const schema = embedded(codec, `${where}: query parameter ${name}`);
    parameters.push({
      name,
      in: 'query',
      required: false,
      ...(schema.type === 'array' ? { style: 'form', explode: true } : {}),
      schema,
    });
  }
  const ignoredHeaders: string[] = [];
  for (const contract of applying) {
    for (const [name, header] of Object.entries(contract.requestHeaders ?? {})) {
      if (IGNORED_HEADERS.has(name.toLowerCase())) {
        ignoredHeaders.push(`\`${name}\`: ${header.description}`);
        continue;
      }
      if (parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === name.toLowerCase())) continue;
      parameters.push({
        name,
        in: 'header',
        required: header.required ?? false,
        description: header.description,
        schema: header.schema ?? UNDECLARED_TEXT,
      });
    }
  }
  return { parameters, ignoredHeaders };
}

/** A path parameter's string schema with at least one character (RFC 3986 section 3.3 segments). */
function nonEmpty(schema: JsonSchema): JsonSchema {
  return schema.type === 'string' && schema.minLength === undefined && schema.enum === undefined
    ? { ...schema, minLength: 1 }
    : schema;
}

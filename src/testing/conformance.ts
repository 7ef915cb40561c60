import Ajv2020 from 'ajv/dist/2020.js';
import { resolveRef } from '../openapi/refs.js';
import type { JsonSchema, OpenApiDocument, OpenApiResponse } from '../openapi/types.js';
import { type MatchedOperation, operationMatcher } from './operation-matcher.js';

/** One request and the response it got, as a checker sees them. */
export interface Exchange {
  readonly method: string;
  /** The request path, without the query. */
  readonly path: string;
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body's text (`''` when empty). */
  readonly body: string;
}

/** What a checker found about one exchange. */
export interface ConformanceResult {
  /** The operation the request addressed, if the document has it. */
  readonly operation: MatchedOperation | undefined;
  /** Every way the response differs from what the document declares; empty when it conforms. */
  readonly problems: readonly string[];
}

/** Where the document's components are registered (a name only: nothing is fetched). */
const DOC_ID = 'https://rest-conventions.invalid/document';

/**
 * A checker of responses against an OpenAPI 3.1 document: the status is declared for the operation
 * (exactly, as `4XX`, or `default`), the body parses and validates against the schema declared for
 * its media type (JSON Schema 2020-12, by ajv), and every header the response declares as required
 * is there. Requests to paths the document does not have are reported with no operation.
 */
export function conformanceChecker(document: OpenApiDocument): (exchange: Exchange) => ConformanceResult {
  const match = operationMatcher(document);
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  ajv.addSchema({ $id: DOC_ID, components: { schemas: document.components?.schemas ?? {} } } as never);
  const compiled = new Map<JsonSchema, (value: unknown) => boolean>();
  const validatorOf = (schema: JsonSchema) => {
    let validate = compiled.get(schema);
    if (validate === undefined) {
      const local = JSON.parse(
        JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`),
      );
      const fn = ajv.compile(local);
      validate = (value) => {
        const ok = fn(value) as boolean;
        lastErrors = ok ? '' : ajv.errorsText(fn.errors);
        return ok;
      };
      compiled.set(schema, validate);
    }
    return validate;
  };
  let lastErrors = '';

  return (exchange) => {
    const operation = match(exchange.method, exchange.path);
    if (operation === undefined) return { operation, problems: [] };
    const problems: string[] = [];
    const where = `${operation.method} ${operation.path} -> ${exchange.status}`;
    const responses = operation.operation.responses;
    const declared =
      responses[String(exchange.status)] ?? responses[`${String(exchange.status)[0]}XX`] ?? responses.default;
    if (declared === undefined) {
      problems.push(
        `${where}: status ${exchange.status} is not declared (declared: ${Object.keys(responses).join(', ')})`,
      );
      return { operation, problems };
    }
    const response = resolveRef(document, declared) as OpenApiResponse;
    for (const [name, rawHeader] of Object.entries(response.headers ?? {})) {
      const header = resolveRef(document, rawHeader);
      if (header.required === true && exchange.headers[name.toLowerCase()] === undefined) {
        problems.push(`${where}: declared header ${name} is missing`);
      }
    }
    const hasBody = exchange.body !== '' && exchange.method.toUpperCase() !== 'HEAD';
    const content = response.content;
    if (!hasBody || content === undefined) {
      if (hasBody && content === undefined && exchange.status !== 304) {
        problems.push(`${where}: a body was sent where the document declares none`);
      }
      return { operation, problems };
    }
    const type = (exchange.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const media = content[type];
    if (media === undefined) {
      problems.push(
        `${where}: media type "${type}" is not declared (declared: ${Object.keys(content).join(', ')})`,
      );
      return { operation, problems };
    }
    if (media.schema !== undefined && /json/.test(type)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(exchange.body);
      } catch {
        problems.push(`${where}: the ${type} body is not JSON`);
        return { operation, problems };
      }
      if (!validatorOf(media.schema)(parsed))
        problems.push(`${where}: body does not match the declared schema: ${lastErrors}`);
    }
    return { operation, problems };
  };
}

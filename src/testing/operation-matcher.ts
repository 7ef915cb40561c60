import {
  OPENAPI_METHODS,
  type OpenApiDocument,
  type OpenApiOperation,
  pathItemOperations,
} from '../openapi/types.js';

/** An operation of the document that a concrete request addresses. */
export interface MatchedOperation {
  readonly path: string;
  readonly method: string;
  readonly operation: OpenApiOperation;
  readonly params: Readonly<Record<string, string>>;
}

interface Template {
  readonly path: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly statics: number;
  /** The path item's operations by method, lower case (`pathItemOperations`), listed once. */
  readonly operations: ReadonlyMap<string, OpenApiOperation>;
}

/**
 * Find the operation a method and a concrete path address (`GET /books/7` -> `/books/{id}`).
 * Static segments win over parameters, as in the router; a trailing slash names the same resource;
 * HEAD is served by GET. Returns `undefined` when the document has no such operation.
 */
export function operationMatcher(
  document: OpenApiDocument,
): (method: string, path: string) => MatchedOperation | undefined {
  const templates: Template[] = Object.keys(document.paths ?? {}).map((path) => {
    const names: string[] = [];
    let statics = 0;
    const source = trim(path)
      .split('/')
      .map((segment) => {
        const param = /^\{([^}]+)\}$/.exec(segment);
        if (param) {
          names.push(param[1]!);
          return '([^/]+)';
        }
        if (segment !== '') statics++;
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    const item = document.paths?.[path];
    const operations = new Map(item === undefined ? [] : pathItemOperations(item));
    return { path, pattern: new RegExp(`^${source}$`), names, statics, operations };
  });
  templates.sort((a, b) => b.statics - a.statics);
  return (method, rawPath) => {
    const wanted = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    if (!(OPENAPI_METHODS as readonly string[]).includes(wanted) && wanted !== 'query') return undefined;
    const path = trim(rawPath);
    for (const template of templates) {
      const found = template.pattern.exec(path);
      if (!found) continue;
      const operation = template.operations.get(wanted);
      if (operation === undefined) continue;
      const params: Record<string, string> = {};
      template.names.forEach((name, i) => {
        params[name] = safeDecode(found[i + 1]!);
      });
      return { path: template.path, method: wanted.toUpperCase(), operation, params };
    }
    return undefined;
  };
}

function trim(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

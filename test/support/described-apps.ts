import type { App } from '../../src/app/app.js';
import { openApiDocument, resolveRef } from '../../src/openapi/index.js';
import type { OpenApiDocument, OpenApiResponse } from '../../src/openapi/types.js';
import { conformanceChecker, type Exchange } from '../../src/testing/conformance.js';
import { operationMatcher } from '../../src/testing/operation-matcher.js';

/**
 * The recording hook of the suite: every response a test receives from a described app (the
 * reference app, marked by `test/support/reference-app.ts`) is checked against that app's own OpenAPI
 * document: its status is declared for the operation, its body validates against the declared schema,
 * its required headers are there, and every header it carries is declared on that response. A
 * response the document does not describe fails the test that got it.
 */
const checkers = new WeakMap<App, (exchange: Exchange) => readonly string[]>();

/**
 * Fields no API description declares: framing and transport (RFC 9112), `Date` (RFC 9110 section
 * 6.6.1), and `Content-Type`, which OpenAPI 3.1 (Header Object) says is described by `content`.
 */
const UNDECLARED = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

/** The headers of a response the document does not declare on it. */
function undeclaredHeaders(document: OpenApiDocument): (exchange: Exchange) => string[] {
  const match = operationMatcher(document);
  return (exchange) => {
    const operation = match(exchange.method, exchange.path);
    if (operation === undefined) return [];
    const declared = operation.operation.responses[String(exchange.status)];
    if (declared === undefined) return [];
    const response = resolveRef(document, declared) as OpenApiResponse;
    const names = new Set(Object.keys(response.headers ?? {}).map((name) => name.toLowerCase()));
    return Object.keys(exchange.headers)
      .filter((name) => !UNDECLARED.has(name) && !names.has(name))
      .map(
        (name) =>
          `${operation.method} ${operation.path} -> ${exchange.status}: header ${name} is sent but not declared`,
      );
  };
}

/** Mark an app whose every response must agree with its OpenAPI document. */
export function describedApp<A extends App>(app: A): A {
  let check: ((exchange: Exchange) => readonly string[]) | undefined;
  checkers.set(app, (exchange) => {
    // Built at the first response, when every route is registered.
    if (check === undefined) {
      const document = openApiDocument(app.routes(), { title: 'reference app', version: 'test' });
      const conforms = conformanceChecker(document);
      const headers = undeclaredHeaders(document);
      check = (sent) => [...conforms(sent).problems, ...headers(sent)];
    }
    return check(exchange);
  });
  return app;
}

/** Throws when `app` is described and the response is not what its document says. */
export function assertDescribed(app: App, exchange: Exchange): void {
  const check = checkers.get(app);
  if (check === undefined) return;
  const problems = check(exchange);
  if (problems.length > 0) {
    throw new Error(`the response contradicts the app's OpenAPI document:\n  ${problems.join('\n  ')}`);
  }
}

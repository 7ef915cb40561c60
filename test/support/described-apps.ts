import type { App } from '../../src/app/app.js';
import { openApiDocument } from '../../src/openapi/index.js';
import { conformanceChecker, type Exchange } from '../../src/testing/conformance.js';

/**
 * The recording hook of the suite: every response a test receives from a described app (the
 * reference app, marked by `test/support/reference-app.ts`) is checked against that app's own OpenAPI
 * document: its status is declared for the operation, its body validates against the declared schema,
 * its required headers are there. A response the document does not describe fails the test that got it.
 */
const checkers = new WeakMap<App, (exchange: Exchange) => readonly string[]>();

/** Mark an app whose every response must agree with its OpenAPI document. */
export function describedApp<A extends App>(app: A): A {
  let check: ((exchange: Exchange) => ReturnType<ReturnType<typeof conformanceChecker>>) | undefined;
  checkers.set(app, (exchange) => {
    // Built at the first response, when every route is registered.
    check ??= conformanceChecker(openApiDocument(app.routes(), { title: 'reference app', version: 'test' }));
    return check(exchange).problems;
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

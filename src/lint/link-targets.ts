/** The `link-targets` rule (docs/lint.md): a response's links lead to operations of the document. */
import { resolveRef } from '../openapi/refs.js';
import {
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiPathItem,
  type OpenApiResponse,
  pathItemOperations,
} from '../openapi/types.js';
import type { LintRuleId } from './rules.js';

type Report = (rule: LintRuleId, path: string, method: string | undefined, message: string) => void;

/**
 * Each Link Object (OpenAPI 3.1 section 4.8.20) leads to an operation: its `operationId` is one of
 * the document's, its local `operationRef` (`#/paths/~1orders~1{id}/get`) resolves to an operation.
 */
export function checkLinkTargets(document: OpenApiDocument, report: Report): void {
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    pathItemOperations(resolveRef(document, item) as OpenApiPathItem).map(
      ([method, operation]) => [path, method, operation] as const,
    ),
  );
  const ids = new Set(operations.map(([, , operation]) => operation.operationId));
  for (const [path, method, operation] of operations) {
    for (const [status, raw] of Object.entries(operation.responses ?? {})) {
      const links = (resolveRef(document, raw) as OpenApiResponse).links ?? {};
      for (const [relation, rawLink] of Object.entries(links)) {
        const link = resolveRef(document, rawLink);
        const { operationId, operationRef } = link;
        const resolved =
          operationId !== undefined
            ? ids.has(operationId)
            : typeof operationRef === 'string' &&
              operationRef.startsWith('#/') &&
              typeof (resolveRef<unknown>(document, { $ref: operationRef }) as Partial<OpenApiOperation>)
                .responses === 'object';
        if (!resolved)
          report(
            'link-targets',
            path,
            method.toUpperCase(),
            `Response ${status} links "${relation}" to ${operationId ?? operationRef ?? 'nothing'}, which is not an operation of the document.`,
          );
      }
    }
  }
}

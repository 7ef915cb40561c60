/** The README's route table of the reference app names each operation as its OpenAPI document does. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { root } from '../support/built-package.js';
import { referenceApp } from '../support/reference-app.js';

/** `[method, path]` of each row of the table "Method and path" (`GET`, `PATCH`, `DELETE /x` rows split). */
function readmeOperations(): [string, string][] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('| Method and path |'));
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
  return rows.flatMap((row) => {
    const cell = row.split('|')[1]!;
    const path = /(\/[^\s`?]*)/.exec(cell)![1]!;
    return [...cell.matchAll(/\b(GET|POST|PATCH|PUT|DELETE)\b/g)].map(([method]): [string, string] => [
      method!,
      path,
    ]);
  });
}

describe('the README route table', () => {
  it('names every operation with the path and method of the OpenAPI document', async () => {
    const { app } = referenceApp();
    const response = await toFetchHandler(app)(new Request('http://app.test/openapi.json'));
    const document = (await response.json()) as OpenApiDocument;
    const operations = readmeOperations();
    expect(operations.length).toBeGreaterThan(10);
    for (const [method, path] of operations) {
      const item = document.paths?.[path] as Record<string, unknown> | undefined;
      expect(item?.[method.toLowerCase()], `${method} ${path}`).toBeDefined();
    }
  });
});

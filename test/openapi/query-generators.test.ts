/**
 * Which client generators can call a QUERY operation (RFC 10008), from the reference app's document in
 * both forms: 3.1.0 with `x-oai-additionalOperations: { QUERY }` and 3.2.0 with the Path Item's
 * `query`. docs/openapi.md ("QUERY") says what this finds; when a generator learns the method, this
 * fails and the page is updated. orval's client on the 3.1.0 document is checked by
 * `orval-client.test.ts`. Everything runs from node_modules, offline.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { openApiDocument, pathItemOperations } from '../../src/openapi/index.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { referenceApp } from '../support/reference-app.js';
import { writeHeyApiClient } from './typed-client/generated-clients.js';

const FORMS = ['3.1.0', '3.2.0'] as const;

function documentIn(openapi: (typeof FORMS)[number]): { document: OpenApiDocument; operationId: string } {
  const document = openApiDocument(referenceApp().app.routes(), {
    title: 'reference',
    version: '1',
    openapi,
  });
  const item = document.paths?.['/api/v1/standards'];
  const query = pathItemOperations(item!).find(([method]) => method.toUpperCase() === 'QUERY');
  const operationId = query?.[1].operationId;
  if (operationId === undefined) throw new Error(`no QUERY operation in the ${openapi} document`);
  return { document: JSON.parse(JSON.stringify(document)), operationId };
}

describe.each(FORMS)('a QUERY operation in an OpenAPI %s document', (openapi) => {
  it('gets no type from openapi-typescript, so openapi-fetch has no call for it', async () => {
    const { document, operationId } = documentIn(openapi);
    const types = astToString(await openapiTS(document as never));
    // The GET of the same path is typed; the QUERY operation is nowhere.
    expect(types).toContain('getApiV1Standards');
    expect(types).not.toContain(operationId);
  });

  it('gets no function from @hey-api/openapi-ts', async () => {
    const { document, operationId } = documentIn(openapi);
    const dir = await mkdtemp(path.join(tmpdir(), 'hey-api-query-'));
    try {
      await writeHeyApiClient(document, dir);
      const sdk = await readFile(path.join(dir, 'sdk.gen.ts'), 'utf8');
      expect(sdk).toContain('getApiV1Standards');
      expect(sdk).not.toContain(operationId);
      expect(sdk).not.toMatch(/method: ['"]QUERY['"]/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Clients generated from the document the zod example serves (openapi-typescript with openapi-fetch,
 * and @hey-api/openapi-ts): generated, compiled under `tsc --strict` with the code that calls them
 * (no cast), and every operation called over a socket.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import type { ServedServer } from '../../examples/reference-app/serve.js';
import { bearer } from '../support/reference-app.js';
import {
  CAST,
  documentOperations,
  strictDiagnostics,
  tsFiles,
  withoutComments,
  writeHeyApiClient,
  writeOpenapiTypes,
} from './typed-client/generated-clients.js';

const CALLS_MODULE = './typed-client/zod-calls.ts';
const CALLS = fileURLToPath(new URL(CALLS_MODULE, import.meta.url));

describe('clients generated from the zod example', () => {
  let served: ServedServer;
  let dir: string;
  let operations: string[];
  const callers = async () => ({
    baseUrl: `http://127.0.0.1:${served.port}`,
    alice: await bearer('zod-client-alice'),
    bob: await bearer('zod-client-bob'),
  });

  beforeAll(async () => {
    served = await serveExample('zod', configFromEnv({ PORT: '0', RATE_LIMIT_MAX: '1000000' }), 0);
    dir = await mkdtemp(path.join(tmpdir(), 'zod-clients-'));
    const document = await (await fetch(`http://127.0.0.1:${served.port}/openapi.json`)).json();
    operations = documentOperations(document);
    await writeOpenapiTypes(document, path.join(dir, 'zod-api.d.ts'));
    await writeHeyApiClient(document, path.join(dir, 'sdk'));
  });
  afterAll(async () => {
    await served?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('compile with tsc --strict, with the calls below, and no cast, any or non-null assertion', async () => {
    const generated = await tsFiles(path.join(dir, 'sdk'));
    const paths = {
      '#zod-api': [path.join(dir, 'zod-api.d.ts')],
      '#zod-sdk/*': [path.join(dir, 'sdk', '*')],
    };
    expect(strictDiagnostics([CALLS, ...generated], { types: ['node'], paths })).toEqual([]);
    expect(withoutComments(await readFile(CALLS, 'utf8'))).not.toMatch(CAST);
  });

  it('call every operation with openapi-fetch', async () => {
    const { callWithOpenapiFetch } = await import(CALLS_MODULE);
    expect((await callWithOpenapiFetch(await callers())).sort()).toEqual(operations);
  });

  it('call every operation with the @hey-api/openapi-ts SDK', async () => {
    const { callWithHeyApi } = await import(CALLS_MODULE);
    const sdk = await import(path.join(dir, 'sdk', 'sdk.gen.ts'));
    const { client } = await import(path.join(dir, 'sdk', 'client.gen.ts'));
    expect((await callWithHeyApi({ sdk, client }, await callers())).sort()).toEqual(operations);
  });
});

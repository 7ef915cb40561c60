/**
 * What the generated-client tests share: the generators, the strict compile every generated client
 * and the code calling it must pass, the check that the calling code casts nothing, and the
 * operations a document declares, which each client must call.
 */
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createClient } from '@hey-api/openapi-ts';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

/** `tsc --strict` (and `noUncheckedIndexedAccess`) over `roots`: each diagnostic as `file:line message`. */
export function strictDiagnostics(
  roots: readonly string[],
  options: { readonly paths?: Record<string, string[]>; readonly types?: string[] } = {},
): string[] {
  const program = ts.createProgram(roots, {
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: options.types ?? [],
    skipLibCheck: true,
    ...(options.paths === undefined ? {} : { paths: options.paths }),
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file
      ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
      : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

/**
 * A cast (`as T`, `<any>`), `any`, or a non-null assertion in code with its comments taken out (a
 * namespace import's `* as name` is no cast).
 */
export const CAST = /(?<!\* )\bas (?!const\b)[A-Za-z{[(]|\bany\b|<any>|[\w)\]]!(?=[.[)])/;

/** `source` without its comments, for {@link CAST}. */
export const withoutComments = (source: string): string => source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');

/**
 * Every operation of a document as `METHOD /path`, but QUERY ones: OpenAPI 3.1 can declare them only
 * under `x-oai-additionalOperations`, which the generators here do not read.
 */
export function documentOperations(document: {
  readonly paths: Record<string, Record<string, unknown>>;
}): string[] {
  return Object.entries(document.paths)
    .flatMap(([p, item]) =>
      Object.keys(item)
        .filter((m) => m !== 'description' && m !== 'x-oai-additionalOperations')
        .map((m) => `${m.toUpperCase()} ${p}`),
    )
    .sort();
}

/** Writes openapi-typescript's types of `document` (its `paths`, for openapi-fetch) to `file`. */
export async function writeOpenapiTypes(document: object, file: string): Promise<void> {
  await writeFile(file, astToString(await openapiTS(document as Parameters<typeof openapiTS>[0])));
}

/** Generates @hey-api/openapi-ts's fetch client of `document` into `dir` (`sdk.gen.ts`, `client.gen.ts`, ...). */
export async function writeHeyApiClient(document: object, dir: string): Promise<void> {
  await createClient({
    input: document,
    output: { path: dir },
    plugins: ['@hey-api/client-fetch'],
    logs: { level: 'silent' },
  } as Parameters<typeof createClient>[0]);
}

/** The `.ts` files under `dir`, generated clients' included. */
export async function tsFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true }))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
}

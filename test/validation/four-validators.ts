import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { type App, createApp } from '../../src/app/app.js';
import type { DeclaredRouteDefinition } from '../../src/core/route.js';
import type { JsonSchemaConverter } from '../../src/validation/standard-schema.js';
import { recordingLogger } from '../core/send.js';
import { taggedBlocks, writeBlocks } from '../support/doc-blocks.js';

/**
 * One API, a note store's, declared four times, with io-ts (the library's codecs), zod, valibot and
 * arktype: the `validation:<library>.ts` blocks of docs/validation.md, run as written. `POST /notes`
 * takes `{ title, quantity, note? }` (a title of 1 to 200 characters that is not blank, an integer
 * from 1 to 100, a note of at most 500 characters), `GET /notes/{id}` a numeric id, `GET /notes` a
 * `limit` from 1 to 50. The handlers echo what they decoded.
 */
export const LIBRARIES = ['io-ts', 'zod', 'valibot', 'arktype'] as const;
export type Library = (typeof LIBRARIES)[number];

/** The page's blocks, by file name (`zod.ts`). */
export const BLOCKS = taggedBlocks('validation.md', 'validation');

interface Block {
  readonly routes: readonly DeclaredRouteDefinition[];
  /** valibot's: its JSON Schema converter. */
  readonly jsonSchema?: JsonSchemaConverter;
}

const dir = writeBlocks(import.meta.dirname, '.validation-doc-', BLOCKS);
const modules = new Map<Library, Block>();
try {
  for (const library of LIBRARIES) modules.set(library, await import(join(dir, `${library}.ts`)));
} finally {
  // Loaded: the files are not needed any more.
  rmSync(dir, { recursive: true, force: true });
}

/** valibot gives its JSON Schema through `@valibot/to-json-schema`: the page's converter. */
export const valibotConverter: JsonSchemaConverter = modules.get('valibot')!.jsonSchema!;

/** The API declared with `library`'s schemas. */
export function notesApp(library: Library): App {
  const { routes, jsonSchema } = modules.get(library)!;
  const app = createApp({ logger: recordingLogger(), ...(jsonSchema === undefined ? {} : { jsonSchema }) });
  for (const route of routes) app.route(route);
  return app;
}

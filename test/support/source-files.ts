import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every `.ts` file under `dir`, at any depth, as absolute paths in a stable order. */
export function typeScriptFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .sort()
    .map((file) => join(dir, file));
}

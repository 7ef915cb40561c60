import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { root } from './built-package.js';

/**
 * The code blocks of a page of docs/ tagged `<tag>:<file>` (```` ```ts adopter:shop.ts ````), by
 * file name, in page order.
 */
export function taggedBlocks(page: string, tag: string): Map<string, string> {
  const text = readFileSync(join(root, 'docs', page), 'utf8');
  const blocks = new Map<string, string>();
  for (const [, file, code] of text.matchAll(new RegExp(`\`\`\`ts ${tag}:(\\S+)\\n([\\s\\S]*?)\`\`\``, 'g')))
    blocks.set(file!, code!);
  return blocks;
}

/**
 * The blocks written out as files of a new folder under `near` (a test's own folder, so that
 * `rest-conventions` and the dev dependencies resolve as in the repository), with a tsconfig that
 * compiles them as the project's (strict). The caller removes the folder.
 */
export function writeBlocks(near: string, prefix: string, blocks: ReadonlyMap<string, string>): string {
  const dir = mkdtempSync(join(near, prefix));
  for (const [file, code] of blocks) writeFileSync(join(dir, file), code);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: relative(dir, join(root, 'tsconfig.json')),
      include: ['./*.ts'],
      compilerOptions: { noEmit: true },
    }),
  );
  return dir;
}

/**
 * Parsed files shared by every compile in this worker: the libs, `@types/node`, the dependencies'
 * declarations and src/ are the same for each page, so each is parsed once, not once a page. A
 * source file is immutable once parsed; it is keyed by how it was parsed (language version, module
 * format) as well as by path.
 */
const parsed = new Map<string, ts.SourceFile>();

/**
 * The blocks of a folder made by {@link writeBlocks}, compiled as `tsc -p` compiles them (the same
 * tsconfig, every file they import): the diagnostics of the blocks themselves, as tsc prints them,
 * `''` when the blocks compile. In process and limited to the blocks: checking src/ in full again
 * for each page cost seconds of CPU each, and src/ is checked by the project's own tsc run
 * (vitest's typecheck pass in `npm test`, `npm run typecheck` in CI). A block that misuses what it
 * imports still fails here, since checking a block checks its uses of src/'s types.
 */
export function compileBlocks(dir: string): string {
  const config = ts.getParsedCommandLineOfConfigFile(join(dir, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  })!;
  const host = ts.createCompilerHost(config.options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, version, onError, shouldCreate) => {
    const key = `${fileName}\0${JSON.stringify(version)}`;
    let file = parsed.get(key);
    if (file === undefined || shouldCreate) {
      file = read(fileName, version, onError, shouldCreate);
      // The blocks are written afresh for each test: only what lies outside the folder is kept.
      if (file !== undefined && !fileName.startsWith(dir)) parsed.set(key, file);
    }
    return file;
  };
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host });
  const blocks = config.fileNames.map((name) => program.getSourceFile(name)!);
  const diagnostics = [
    ...config.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...blocks.flatMap((file) => [
      ...program.getSyntacticDiagnostics(file),
      ...program.getSemanticDiagnostics(file),
    ]),
  ];
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  });
}

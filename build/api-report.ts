/**
 * The API report: one Markdown file per entry point in `api/`, written by API Extractor from the
 * built declarations (`dist/**\/index.d.ts`, so run `npm run build` first). `npm run api:check` fails
 * when a report no longer matches what the package exports; `npm run api:update` rewrites the reports,
 * and the diff shows the change of surface for review.
 *
 * All entry points go through one TypeScript program (API Extractor's `CompilerState`), so the
 * declarations and the peers' types are parsed once rather than once per entry point.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');
const update = process.argv.includes('--update');

/**
 * Every entry point package.json `exports` declares, by the declarations its `import` condition names;
 * the report's file name is the subpath with `/` as `-`, and `index` for the root.
 */
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { import?: { types?: string } }>;
};
const entries = Object.entries(manifest.exports).flatMap(([subpath, target]) => {
  const types = typeof target === 'object' ? target.import?.types : undefined;
  if (types === undefined) return []; // `./package.json`
  const name = subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-');
  return [
    {
      name,
      subpath: subpath === '.' ? 'rest-conventions' : `rest-conventions/${subpath.slice(2)}`,
      declarations: join(root, types),
    },
  ];
});

// API Extractor writes its reports here; this script compares them with the committed ones itself, as
// they are first made independent of where in `dist/` a declaration landed (see `normalise`).
const scratch = mkdtempSync(join(tmpdir(), 'api-report-'));

/**
 * A warning that belongs to no single export names its declaration file and line, e.g.
 * `// dist/middleware-BlXtEBlK.d.ts:57:5 - (ae-unresolved-link) ...`. The chunk's name is a content
 * hash and the line moves with any edit above it, so neither says anything about the surface: drop them.
 */
function normalise(report: string): string {
  return report.replace(/^\/\/ dist\/\S+:\d+:\d+ - /gm, '// ');
}

/**
 * Where a type a signature uses is named, when its own entry point does not export it: the entry
 * point that does (docs/api.md, "Which names are public"). A type is public once one entry point
 * exports it, the one that owns it: `Middleware` from `rest-conventions/core`, `ErrorDetail` from
 * `rest-conventions/errors`; the root and each convention's subpath use such types without exporting
 * them again. The name is taken as that type only when the declarations hold one type of that name,
 * so an internal type that happens to share a name stays a warning.
 */
function homesOfTypes(program: ts.Program): Map<string, string> {
  const checker = program.getTypeChecker();
  const declarationKey = (declaration: ts.Declaration) =>
    `${declaration.getSourceFile().fileName}:${declaration.getStart()}`;
  // Every top-level declaration in the built declarations, by name.
  const declared = new Map<string, Set<string>>();
  for (const file of program.getSourceFiles()) {
    // The ESM declarations: each entry point's report reads those (the CommonJS ones repeat them).
    if (!file.fileName.startsWith(join(root, 'dist')) || !file.fileName.endsWith('.d.ts')) continue;
    for (const statement of file.statements) {
      const named = statement as ts.Statement & { name?: ts.Node };
      if (named.name === undefined || !ts.isIdentifier(named.name)) continue;
      const keys = declared.get(named.name.text) ?? new Set<string>();
      keys.add(declarationKey(statement as ts.Declaration));
      declared.set(named.name.text, keys);
    }
  }
  const homes = new Map<string, string>();
  // The root last: a type is homed on the subpath that owns it, the root only re-exports a few.
  for (const entry of [...entries.slice(1), entries[0]!]) {
    const file = program.getSourceFile(entry.declarations);
    const module = file && checker.getSymbolAtLocation(file);
    if (module === undefined) continue;
    for (const exported of checker.getExportsOfModule(module)) {
      if (homes.has(exported.name)) continue;
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const keys = declared.get(exported.name);
      const declaration = target.declarations?.[0];
      if (keys?.size !== 1 || declaration === undefined) continue;
      if (!keys.has(declarationKey(declaration))) continue;
      homes.set(exported.name, entry.subpath);
    }
  }
  return homes;
}

/**
 * API Extractor warns of a type that a signature uses and its entry point does not export
 * (`ae-forgotten-export`). Where another entry point exports that very type, a user names it from
 * there: the warning becomes a note saying where. What is left is a type no entry point exports.
 */
function noteHomes(report: string, homes: ReadonlyMap<string, string>): string {
  const noted = report.replace(
    /^(\s*)\/\/ (?:Warning: )?\(ae-forgotten-export\) The symbol "([^"]+)" needs to be exported by the entry point \S+$/gm,
    (line, indent: string, name: string) => {
      const home = homes.get(name);
      return home === undefined ? line : `${indent}// Uses "${name}" from ${home}`;
    },
  );
  // The closing list of warnings that belong to no declaration, once only such notes are left in it.
  const closing = '// Warnings were encountered during analysis:\n';
  const at = noted.indexOf(closing);
  if (at === -1 || /^\/\/ \(ae-/m.test(noted.slice(at))) return noted;
  return `${noted.slice(0, at)}// Types it uses from other entry points:\n${noted.slice(at + closing.length)}`;
}

function configFor(entry: (typeof entries)[number]): ExtractorConfig {
  return ExtractorConfig.prepare({
    configObjectFullPath: undefined,
    packageJsonFullPath: join(root, 'package.json'),
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: entry.declarations,
      // Only the declarations and what they import: not the sources' tsconfig, which would parse src/.
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            types: ['node'],
            // The build already type-checked these declarations; checking them and every peer's types
            // again doubles this script's time (13 s of CPU against 6 s) and finds nothing new. Types
            // are still resolved in full, so the report is the same.
            skipLibCheck: true,
          },
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: `${entry.name}.api.md`,
        reportFolder: scratch,
        reportTempFolder: join(scratch, 'temp'),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: {
        // The report lists the surface; doc-comment style is not what it guards.
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
          // Release tags (@public, @beta) are not used: every export of an entry point is public.
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          // Which exports carry a doc comment is for review, not a change of surface.
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
        },
      },
    },
  });
}

/** The lines only one side has, `-` for the committed report and `+` for the found one: enough to see what moved in a CI log. */
function lineChanges(before: string, after: string, most = 40): string {
  const was = new Set(before.split('\n'));
  const is = new Set(after.split('\n'));
  const lines = [
    ...[...was].filter((line) => line.trim() !== '' && !is.has(line)).map((line) => `  - ${line}`),
    ...[...is].filter((line) => line.trim() !== '' && !was.has(line)).map((line) => `  + ${line}`),
  ];
  const shown = lines.slice(0, most);
  if (lines.length > most) shown.push(`  … and ${lines.length - most} more lines`);
  return shown.join('\n');
}

const configs = entries.map((entry) => ({ entry, config: configFor(entry) }));
const compilerState = CompilerState.create(configs[0]!.config, {
  additionalEntryPoints: entries.map((entry) => entry.declarations),
});

const homes = homesOfTypes(compilerState.program as ts.Program);

const changed: string[] = [];
const failed: string[] = [];
try {
  for (const { entry, config } of configs) {
    const result = Extractor.invoke(config, {
      // Always write the report (into the scratch folder): the comparison below is this script's.
      localBuild: true,
      compilerState,
      messageCallback: (message) => {
        // The extractor's warnings are written into the report itself, where a reviewer sees them; its
        // console notes (the TypeScript version it analyses with, a report it created) say nothing here.
        if (message.category !== 'Compiler' && message.logLevel !== ExtractorLogLevel.Error) {
          message.handled = true;
        }
      },
    });
    if (result.errorCount > 0) {
      failed.push(entry.name);
      continue;
    }
    const file = `${entry.name}.api.md`;
    const found = noteHomes(normalise(readFileSync(join(scratch, file), 'utf8')), homes);
    const committed = join(root, 'api', file);
    const before = existsSync(committed) ? readFileSync(committed, 'utf8') : '';
    if (before === found) continue;
    changed.push(`api/${file}`);
    if (!update) console.error(`api/${file}:\n${lineChanges(before, found)}`);
    if (update) {
      mkdirSync(join(root, 'api'), { recursive: true });
      writeFileSync(committed, found);
    }
  }
  // A report whose entry point is gone is a change of surface too.
  const reports = new Set(entries.map((entry) => `${entry.name}.api.md`));
  const committed = existsSync(join(root, 'api')) ? readdirSync(join(root, 'api')) : [];
  for (const file of committed.filter((name) => name.endsWith('.api.md') && !reports.has(name))) {
    changed.push(`api/${file} (no such entry point)`);
    if (update) rmSync(join(root, 'api', file));
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

if (failed.length > 0) {
  console.error(`API Extractor failed on: ${failed.join(', ')}`);
  process.exit(1);
}
if (changed.length > 0 && !update) {
  console.error(
    `The public API changed, and these reports do not say so yet:\n  ${changed.join('\n  ')}\n` +
      'If the change is meant, run `npm run build && npm run api:update` and commit the reports ' +
      '(see CONTRIBUTING.md, "The API report").',
  );
  process.exit(1);
}
console.log(
  update
    ? `API reports: ${changed.length} of ${entries.length} rewritten.`
    : `API reports: all ${entries.length} match.`,
);

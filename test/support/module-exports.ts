import ts from 'typescript';

/** What one module exports, as the compiler resolves it: value names and type-only names, sorted. */
export interface ModuleExports {
  readonly values: readonly string[];
  readonly types: readonly string[];
}

/**
 * The exports of each given source file (keyed as given), read through one TypeScript program, so
 * re-exports (`export *`, `export { x } from`) count as the names a consumer imports.
 */
export function moduleExports(files: Readonly<Record<string, string>>): Record<string, ModuleExports> {
  const program = ts.createProgram(Object.values(files), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const result: Record<string, ModuleExports> = {};
  for (const [key, file] of Object.entries(files)) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
    const values: string[] = [];
    const types: string[] = [];
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      (target.flags & ts.SymbolFlags.Value ? values : types).push(symbol.name);
    }
    result[key] = { values: values.sort(), types: types.sort() };
  }
  return result;
}

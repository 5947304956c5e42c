#!/usr/bin/env node
// Counts the names a package entry point exports (values and types), e.g. `node scripts/count-exports.mjs src/index.ts`.
import path from 'node:path';
import ts from 'typescript';

const entry = path.resolve(process.argv[2] ?? 'src/index.ts');
const program = ts.createProgram([entry], {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
});
const checker = program.getTypeChecker();
const symbol = checker.getSymbolAtLocation(program.getSourceFile(entry));
const names = checker.getExportsOfModule(symbol).map((s) => s.getName());
const values = checker
  .getExportsOfModule(symbol)
  .filter((s) => {
    const decl = s.declarations?.[0];
    if (decl && ts.isTypeOnlyImportOrExportDeclaration?.(decl)) return false;
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
    return (target.flags & ts.SymbolFlags.Value) !== 0;
  })
  .map((s) => s.getName());
console.log(`${names.length} names (${values.length} values): ${values.sort().join(', ')}`);

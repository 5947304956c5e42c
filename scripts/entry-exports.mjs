// The package's entry points and what each exports, read with the TypeScript compiler: shared by
// count-exports.mjs, check-doc-facts.mjs and test/package/exports-snapshot.test.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** The package's entry points as source files relative to the root, from package.json `exports` (dist/x.js → src/x.ts). */
export function entryFiles() {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return Object.entries(pkg.exports)
    .filter(([key]) => key !== './package.json')
    .map(([, value]) => value.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
}

/** A type-checked program over `files` (paths relative to the root, or absolute). */
export function entryProgram(files) {
  return ts.createProgram(
    files.map((f) => path.resolve(root, f)),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    },
  );
}

/** Every exported name of each of `files`, and the value exports among them: file → `{ names, values }`. */
export function entryExports(files, program = entryProgram(files)) {
  const checker = program.getTypeChecker();
  const out = new Map();
  for (const file of files) {
    const symbol = checker.getSymbolAtLocation(program.getSourceFile(path.resolve(root, file)));
    const all = checker.getExportsOfModule(symbol);
    const values = all.filter((s) => {
      const decl = s.declarations?.[0];
      if (decl && ts.isTypeOnlyImportOrExportDeclaration?.(decl)) return false;
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      return (target.flags & ts.SymbolFlags.Value) !== 0;
    });
    out.set(file, { names: new Set(all.map((s) => s.getName())), values: values.map((s) => s.getName()) });
  }
  return out;
}

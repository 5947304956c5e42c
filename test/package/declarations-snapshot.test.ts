// The public surface pinned by its declarations, not only its names: for each entry point of package.json, read
// from the BUILT `.d.ts` files (what a consumer's compiler sees), every exported name with the text of its
// declaration, printed by the TypeScript printer without comments (so TSDoc edits do not count, a changed
// parameter, field or return type does), and after them every declaration of ours those reach without being
// exported (an options type behind a parameter), so a change there shows too. One file per entry under
// test/package/declarations/; after an intended change, `npm run build` then
// `npx vitest run test/package/declarations-snapshot.test.ts -u` rewrites them.
import { existsSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations.
import { entryFiles, root } from '../../scripts/entry-exports.mjs';

const dist = path.join(root, 'dist');
/** src/x/index.ts → dist/x/index.d.ts */
const declarationOf = (file: string) =>
  path.join(root, file.replace(/^src\//, 'dist/').replace(/\.ts$/, '.d.ts'));
const files: string[] = entryFiles();
const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** Where a declaration lives, relative to dist/; undefined when it is not ours (Node's, zod's, …). */
function ourFile(decl: ts.Node): string | undefined {
  const file = decl.getSourceFile().fileName;
  return file.startsWith(`${dist}${path.sep}`) ? path.relative(dist, file) : undefined;
}

/** The declaration printed alone; a variable is printed as `const name: type`. */
function print(decl: ts.Declaration): string {
  const text = printer.printNode(ts.EmitHint.Unspecified, decl, decl.getSourceFile());
  return ts.isVariableDeclaration(decl) ? `const ${text}` : text;
}

/** Symbols of ours that `decl`'s text refers to (types, heritage, `typeof`), aliases resolved. */
function references(decl: ts.Node, checker: ts.TypeChecker): ts.Symbol[] {
  const out: ts.Symbol[] = [];
  const visit = (node: ts.Node) => {
    let at: ts.Node | undefined;
    if (ts.isTypeReferenceNode(node)) at = node.typeName;
    else if (ts.isExpressionWithTypeArguments(node)) at = node.expression;
    else if (ts.isTypeQueryNode(node)) at = node.exprName;
    else if (ts.isImportTypeNode(node)) at = node.qualifier;
    if (at) {
      let symbol = checker.getSymbolAtLocation(ts.isQualifiedName(at) ? at.right : at);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      if (symbol && !(symbol.flags & ts.SymbolFlags.TypeParameter)) out.push(symbol);
    }
    ts.forEachChild(node, visit);
  };
  visit(decl);
  return out;
}

/** One entry's declarations: each export (sorted), then what they reach of ours that it does not export. */
function surface(file: string, program: ts.Program): string {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(declarationOf(file));
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`no declarations for ${file}: run \`npm run build\` first`);
  const exported = checker
    .getExportsOfModule(moduleSymbol)
    .map((s) => ({
      name: s.getName(),
      target: s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const seen = new Set<ts.Symbol>(exported.map((e) => e.target));
  const reached = new Map<string, string>();
  const queue: ts.Symbol[] = [];
  const block = (label: string, symbol: ts.Symbol) => {
    const decls = (symbol.declarations ?? []).filter((d) => ourFile(d) !== undefined);
    for (const d of decls) queue.push(...references(d, checker));
    const text = decls.map((d) => print(d)).join('\n');
    return `## ${label}\n${text || '(declared outside the package)'}\n`;
  };
  const out = exported.map((e) => block(e.name, e.target));
  while (queue.length > 0) {
    const symbol = queue.shift() as ts.Symbol;
    if (seen.has(symbol)) continue;
    seen.add(symbol);
    const where = symbol.declarations?.map(ourFile).find((f) => f !== undefined);
    if (where === undefined) continue;
    reached.set(
      `${symbol.getName()} (${where})`,
      block(`${symbol.getName()} (reached, not exported here; ${where})`, symbol),
    );
  }
  const internal = [...reached.keys()].sort().map((k) => reached.get(k));
  return `${out.join('\n')}\n# Reached from the exports, not exported by this entry\n\n${internal.join('\n')}`;
}

describe('public declarations', () => {
  const built = files.every((f) => existsSync(declarationOf(f)));
  const program = built
    ? ts.createProgram(files.map(declarationOf), {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        strict: true,
        skipLibCheck: true,
        noEmit: true,
      })
    : undefined;

  it('has a build to read', () => {
    expect(built, 'dist/ lacks an entry point: run `npm run build` first').toBe(true);
  });

  it.each(files)('%s declares exactly the pinned signatures', async (file) => {
    if (!program) throw new Error('no build');
    const name = file
      .replace(/^src\//, '')
      .replace(/\/index\.ts$|\.ts$/, '')
      .replace(/\//g, '-');
    await expect(surface(file, program)).toMatchFileSnapshot(
      `./declarations/${name === 'index' ? 'root' : name}.d.txt`,
    );
  });
});

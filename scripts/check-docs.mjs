#!/usr/bin/env node
// Fails when a public symbol has no TSDoc: every export of the package's entry points (every `exports` entry of
// package.json) and every member of the classes and interfaces among them. The equivalent of typedoc's
// notDocumented validation, without the dependency.
import path from 'node:path';
import ts from 'typescript';
import { entryFiles, entryProgram, root } from './entry-exports.mjs';

const entries = entryFiles().map((f) => path.join(root, f));
const program = entryProgram(entries);
const checker = program.getTypeChecker();
const missing = new Set();

const documented = (symbol) =>
  symbol.getDocumentationComment(checker).length > 0 ||
  symbol.getJsDocTags(checker).length > 0 ||
  // A documented parent declaration (e.g. `export const X = …` documented on the statement).
  (symbol.declarations ?? []).some((d) => ts.getJSDocCommentsAndTags(d).length > 0);

const where = (decl) => {
  const sf = decl.getSourceFile();
  const { line } = sf.getLineAndCharacterOfPosition(decl.getStart());
  return `${path.relative(root, sf.fileName)}:${line + 1}`;
};

function checkMembers(symbol) {
  for (const decl of symbol.declarations ?? []) {
    if (!ts.isInterfaceDeclaration(decl) && !ts.isClassDeclaration(decl)) continue;
    // Our own sources only: members of zod or Node types are not ours to document.
    if (decl.getSourceFile().fileName.includes('node_modules')) continue;
    for (const member of decl.members) {
      if (ts.isConstructorDeclaration(member) || ts.isIndexSignatureDeclaration(member)) continue;
      if (!member.name || ts.isPrivateIdentifier(member.name) || ts.isComputedPropertyName(member.name))
        continue;
      const mods = ts.getCombinedModifierFlags(member);
      if (mods & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
      const ms = checker.getSymbolAtLocation(member.name);
      // Getters/methods that implement a documented interface member inherit its docs.
      if (ms && !documented(ms) && ts.getJSDocCommentsAndTags(member).length === 0) {
        const inherited = ts.isClassDeclaration(decl) && implementsDocumented(decl, ms.getName());
        if (!inherited) missing.add(`${where(member)} ${symbol.getName()}.${ms.getName()}`);
      }
    }
  }
}

function implementsDocumented(cls, name) {
  for (const clause of cls.heritageClauses ?? []) {
    for (const t of clause.types) {
      const type = checker.getTypeAtLocation(t);
      const prop = type.getProperty(name);
      if (prop && documented(prop)) return true;
    }
  }
  return false;
}

for (const entry of entries) {
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry));
  for (const exported of checker.getExportsOfModule(module)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const decl = symbol.declarations?.[0];
    if (!decl || decl.getSourceFile().fileName.includes('node_modules')) continue;
    // The simulator's scenario types belong to the simulator's owners; they are checked by its own review.
    if (decl.getSourceFile().fileName.includes('/src/testing/simulator/')) continue;
    if (!documented(symbol)) missing.add(`${where(decl)} ${symbol.getName()}`);
    checkMembers(symbol);
  }
}

if (missing.size) {
  console.error(`public symbols without TSDoc (${missing.size}):\n  ${[...missing].sort().join('\n  ')}`);
  process.exit(1);
}
console.log('every public symbol is documented');

#!/usr/bin/env node
// Enforces the one layer table of docs/architecture.md (the markdown table headed `folder | may import`) on the
// import graph of src/, and nothing else: every file of src/ falls under exactly one row (the one whose path
// names it most closely), and imports only files of its own row or of what that row's "may import" cell lists. Every import counts: static and type-only
// imports, re-exports, `import()` expressions and `import('…')` types. Also: no import cycles at all; class
// members are private as JS `#private`, never through TS's `private`/`protected`; zod is imported as `zod/v4`.
//
//   node scripts/check-layers.mjs [--root <dir>]   check <dir> (default: this repository); exit 1 on a breach
//
// A cell names its paths in backticks, relative to src/: `dir/` is that folder and everything under it,
// `dir/*` the files directly in it, `file.ts` one file. A "may import" cell holds only such paths, or the word
// "nothing"; reasons go in a third column, so no prose can read as a permission.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** A cell's paths: `dir/`, `dir/*` or a file. */
function parsePatterns(cell, where) {
  const patterns = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1].trim());
  const rest = cell
    .replace(/`[^`]*`/g, '')
    .replace(/[,;+]|\band\b/g, '')
    .trim();
  if (rest !== '' && !(rest.toLowerCase() === 'nothing' && patterns.length === 0))
    throw new Error(`${where}: "${rest}" is not a path in backticks (reasons go in a third column)`);
  for (const p of patterns)
    if (!/^(?:[a-z0-9-]+\/)*(?:[a-z0-9-]+\/\*?|[a-z0-9-]+\.[a-z]+)$/.test(p))
      throw new Error(`${where}: \`${p}\` is not \`dir/\`, \`dir/*\` or a file path under src/`);
  return patterns;
}

/** Splits a markdown table row into its cells (a `|` inside backticks does not occur in paths). */
function cells(line) {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());
}

/**
 * The layer table of `markdown`: the one table whose first two header cells are `folder` and `may import`.
 * Each row is `{ folders, allow, line }` (1-based line in the document). Throws on no such table, two of them,
 * a row without paths, a path in two rows, or prose in a cell.
 */
export function parseLayerTable(markdown, file = 'docs/architecture.md') {
  const lines = markdown.split('\n');
  const starts = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const head = lines[i].trim().startsWith('|') ? cells(lines[i]).map((c) => c.toLowerCase()) : [];
    if (head[0] === 'folder' && head[1] === 'may import' && /^\|?\s*:?-+/.test(lines[i + 1].trim()))
      starts.push(i);
  }
  if (starts.length !== 1)
    throw new Error(
      `${file}: ${starts.length} tables headed "folder | may import" (the layer table must be one)`,
    );
  const rows = [];
  const owner = new Map();
  for (let i = starts[0] + 2; i < lines.length && lines[i].trim().startsWith('|'); i++) {
    const where = `${file}:${i + 1}`;
    const [folderCell = '', allowCell = ''] = cells(lines[i]);
    const folders = parsePatterns(folderCell, where);
    if (folders.length === 0) throw new Error(`${where}: a row names no folder or file`);
    for (const f of folders) {
      if (owner.has(f)) throw new Error(`${where}: \`${f}\` is also in the row on line ${owner.get(f)}`);
      owner.set(f, i + 1);
    }
    rows.push({ folders, allow: parsePatterns(allowCell, where), line: i + 1 });
  }
  return rows;
}

/**
 * How closely `pattern` names `file` (relative to src/, `/`-separated): 0 when it does not name it; a file path
 * names it most closely, then `dir/*`, then `dir/` (the deeper the closer). So `connection/index.ts` can have a
 * row of its own beside `connection/*`, and `connection/agy/` beside `connection/`.
 */
export function closeness(pattern, file) {
  if (!matches(pattern, file)) return 0;
  if (!pattern.endsWith('/') && !pattern.endsWith('/*')) return Number.MAX_SAFE_INTEGER;
  const depth = pattern.split('/').length;
  return pattern.endsWith('/*') ? 2 * depth + 1 : 2 * depth;
}

/** Whether `file` (relative to src/, `/`-separated) is what `pattern` names. */
export function matches(pattern, file) {
  if (pattern.endsWith('/*')) return path.posix.dirname(file) === pattern.slice(0, -2);
  if (pattern.endsWith('/')) return file.startsWith(pattern);
  return file === pattern;
}

/** Every module `text` imports: `{ spec, line }` for each specifier, whatever the form of the import. */
export function importsOf(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const add = (node) => {
    if (node && ts.isStringLiteralLike(node))
      found.push({ spec: node.text, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { sf, imports: found };
}

/** TS `private`/`protected` members of `sf` (a constructor excepted: JS has no private constructor). */
function tsPrivateMembers(sf, rel) {
  const out = [];
  const visit = (node) => {
    if (!ts.isConstructorDeclaration(node) && ts.canHaveModifiers(node))
      for (const m of ts.getModifiers(node) ?? [])
        if (m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword) {
          const line = sf.getLineAndCharacterOfPosition(m.getStart(sf)).line + 1;
          out.push(`${rel}:${line}: TS \`${m.getText(sf)}\` modifier: use a JS \`#private\` member`);
        }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Import cycles of `graph` (Tarjan's strongly connected components with more than one file). */
function cycles(graph) {
  const problems = [];
  let index = 0;
  const stack = [];
  const meta = new Map();
  const connect = (v) => {
    meta.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!meta.has(w)) {
        connect(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).onStack) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
    }
    if (meta.get(v).low === meta.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) problems.push(`import cycle: ${component.sort().join(' ↔ ')}`);
    }
  };
  for (const v of graph.keys()) if (!meta.has(v)) connect(v);
  return problems;
}

/**
 * The breaches of `rows` in `files` (a map: path relative to src/ → source text). Returns the problems, each a
 * line naming the file (and line), and the number of files checked.
 */
export function checkLayers(rows, files) {
  const problems = [];
  // The rows naming `file` most closely: one, or none when no row names it (ties cannot occur: a path is in one
  // row only, and two different paths never name a file equally closely).
  const rowOf = (file) => {
    let best = 0;
    let own = [];
    for (const r of rows) {
      const c = Math.max(...r.folders.map((f) => closeness(f, file)));
      if (c > best) [best, own] = [c, [r]];
      else if (c === best && c > 0) own.push(r);
    }
    return own;
  };
  const graph = new Map();
  for (const [rel, text] of files) {
    const own = rowOf(rel);
    if (own.length === 0)
      problems.push(`${rel}: under no row of the layer table (add its folder to the table)`);
    if (own.length > 1)
      problems.push(
        `${rel}: under ${own.length} rows of the layer table (lines ${own.map((r) => r.line).join(', ')})`,
      );
    const { sf, imports } = importsOf(rel, text);
    const deps = new Set();
    for (const { spec, line } of imports) {
      // zod is imported as `zod/v4` only: that path is zod 4 both in zod 4 and in zod 3.25 (the peer range).
      if (spec === 'zod')
        problems.push(`${rel}:${line}: imports 'zod': import 'zod/v4' (the peer range includes zod 3.25)`);
      if (!spec.startsWith('./') && !spec.startsWith('../')) continue;
      const to = path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec)).replace(/\.js$/, '.ts');
      if (to.startsWith('../')) continue;
      deps.add(to);
      if (own.length !== 1) continue;
      const row = own[0];
      if (rowOf(to)[0] === row || row.allow.some((a) => matches(a, to))) continue;
      problems.push(
        `${rel}:${line}: imports ${to}, which the row of \`${row.folders.join('`, `')}\` does not list`,
      );
    }
    graph.set(rel, deps);
    if (/\b(?:private|protected)\b/.test(text)) problems.push(...tsPrivateMembers(sf, rel));
  }
  problems.push(...cycles(graph));
  return { problems, checked: files.size };
}

/** Every `.ts` file under `dir`, relative to it, `/`-separated. */
function sourceFiles(dir) {
  const out = new Map();
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts'))
        out.set(path.relative(dir, p).split(path.sep).join('/'), fs.readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

function main(argv) {
  const rootArg = argv.indexOf('--root');
  const root =
    rootArg >= 0
      ? path.resolve(argv[rootArg + 1] ?? '.')
      : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  let rows;
  try {
    rows = parseLayerTable(fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));
  } catch (error) {
    console.error(`check-layers: ${error.message}`);
    return 1;
  }
  const { problems, checked } = checkLayers(rows, sourceFiles(path.join(root, 'src')));
  if (problems.length) {
    console.error(`layer rules broken (${problems.length}):\n  ${problems.join('\n  ')}`);
    return 1;
  }
  console.log(`layer rules hold: ${checked} files, ${rows.length} rows, no cycles`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = main(process.argv);

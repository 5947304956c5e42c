#!/usr/bin/env node
// `npm run lint`: the facts the docs state about the code must be the code's. Fails when
// - an entry point's export list in docs/api-reference.md (between `<!-- exports <src file> -->` and
//   `<!-- /exports -->`) misses an export, or names (in backticks, capitalized, undotted) something the entry
//   does not export; or another doc holds such a block (one list per entry, in one place);
// - a count in such a block ("N names (M values)") differs from the entry's;
// - a phrase "N entry points" / "N public entry files" anywhere in the docs differs from the package's exports;
// - typedoc.json's entry points are not the package's exports.
// `--self-test` checks that the parser catches a missing name, a stale name and a wrong count.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { entryExports, entryFiles, root } from './entry-exports.mjs';

export { entryFiles };

const read = (rel) => readFileSync(path.join(root, rel), 'utf8');

/** The page that lists each entry point's exports. */
const LISTS = 'docs/api-reference.md';

/** Every exported name of each entry, and how many of them are values. */
function exportsOf(files) {
  const out = new Map();
  for (const [file, { names, values }] of entryExports(files))
    out.set(file, { names, values: values.length });
  return out;
}

/** The `<!-- exports file -->` blocks of `text`: file → block text. */
export function exportBlocks(text) {
  const blocks = new Map();
  for (const m of text.matchAll(/<!-- exports (\S+) -->([\s\S]*?)<!-- \/exports -->/g)) {
    blocks.set(m[1], `${blocks.get(m[1]) ?? ''}${m[2]}`);
  }
  return blocks;
}

/** The leading identifier of each code span in `block`, with whether the span is dotted (a member). */
export function codeNames(block) {
  return [...block.matchAll(/`([^`\n]+)`/g)]
    .map((m) => m[1])
    .map((span) => ({ span, name: /^[A-Za-z_$][\w$]*/.exec(span)?.[0], dotted: /^[\w$]+\./.test(span) }))
    .filter((x) => x.name);
}

/** Problems of one block against the entry's exports. */
export function checkBlock(file, block, exported) {
  const problems = [];
  const spans = codeNames(block);
  const named = new Set(spans.filter((s) => !s.dotted).map((s) => s.name));
  const missing = [...exported.names].filter((n) => !named.has(n)).sort();
  if (missing.length) problems.push(`${file}: exports not listed in ${LISTS}: ${missing.join(', ')}`);
  const stale = [
    ...new Set(
      spans
        .filter((s) => !s.dotted && /^[A-Z]/.test(s.name) && !exported.names.has(s.name))
        .map((s) => s.name),
    ),
  ];
  if (stale.length) problems.push(`${file}: ${LISTS} lists names it does not export: ${stale.join(', ')}`);
  for (const m of block.matchAll(/(\d+) (?:root )?names(?: \((\d+) values\))?/g)) {
    if (Number(m[1]) !== exported.names.size)
      problems.push(`${file}: ${LISTS} says ${m[1]} names, the entry exports ${exported.names.size}`);
    if (m[2] !== undefined && Number(m[2]) !== exported.values)
      problems.push(`${file}: ${LISTS} says ${m[2]} values, the entry exports ${exported.values}`);
  }
  return problems;
}

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

/** "N entry points" phrases in `text` that do not say `count`. */
export function wrongEntryCounts(text, count) {
  const wrong = [];
  for (const m of text.matchAll(
    /\b(\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:public\s+)?entry\s+(?:points|files)\b/gi,
  )) {
    const n = /^\d+$/.test(m[1]) ? Number(m[1]) : WORDS.indexOf(m[1].toLowerCase());
    if (n !== count) wrong.push(m[0].replace(/\s+/g, ' '));
  }
  return wrong;
}

function docFiles() {
  const out = ['README.md', 'examples/README.md'];
  const walk = (dir) => {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (rel !== 'docs/api') walk(rel);
      } else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  // This script's own self-test phrases are not claims.
  for (const e of readdirSync(path.join(root, 'scripts')))
    if (e.endsWith('.mjs') && e !== 'check-doc-facts.mjs') out.push(`scripts/${e}`);
  return out;
}

function selfTest() {
  const exported = { names: new Set(['Agent', 'tool', 'Step']), values: 2 };
  const ok = checkBlock(
    'x',
    'Root: 3 names (2 values): `Agent`, `tool(spec)`, `Step`, `agent.Member`.',
    exported,
  );
  const missing = checkBlock('x', '`Agent`, `tool`', exported);
  const stale = checkBlock('x', '`Agent`, `tool`, `Step`, `Gone`', exported);
  const count = checkBlock('x', '`Agent`, `tool`, `Step`; 4 names (2 values)', exported);
  const entries = wrongEntryCounts('the three entry points and five public entry files', 5);
  const pass =
    ok.length === 0 &&
    missing.length === 1 &&
    stale.length === 1 &&
    count.length === 1 &&
    entries.length === 1 &&
    entries[0] === 'three entry points';
  console.log(pass ? 'check-doc-facts self-test: ok' : 'check-doc-facts self-test: FAILED');
  process.exitCode = pass ? 0 : 1;
}

function main() {
  if (process.argv.includes('--self-test')) return selfTest();
  const files = entryFiles();
  const problems = [];
  const exported = exportsOf(files);
  const blocks = exportBlocks(read(LISTS));
  for (const file of files) {
    const block = blocks.get(file);
    if (block === undefined) problems.push(`${file}: ${LISTS} has no <!-- exports ${file} --> block`);
    else problems.push(...checkBlock(file, block, exported.get(file)));
  }
  for (const file of blocks.keys())
    if (!files.includes(file)) problems.push(`${LISTS}: an exports block for ${file}, not an entry point`);
  for (const doc of docFiles()) {
    for (const phrase of wrongEntryCounts(read(doc), files.length))
      problems.push(`${doc}: "${phrase}", but the package has ${files.length} entry points`);
    // A second list would go stale unchecked.
    if (doc !== LISTS && doc.endsWith('.md') && exportBlocks(read(doc)).size > 0)
      problems.push(`${doc}: holds an exports block; the lists live in ${LISTS} only`);
  }
  const typedoc = JSON.parse(read('typedoc.json')).entryPoints;
  if ([...typedoc].sort().join() !== [...files].sort().join())
    problems.push(
      `typedoc.json entryPoints (${typedoc.join(', ')}) are not the package's (${files.join(', ')})`,
    );
  if (problems.length) {
    console.error(
      `check-doc-facts: ${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
    process.exit(1);
  }
  console.log(`check-doc-facts: ok (${files.length} entry points, export lists and counts match)`);
}

main();

#!/usr/bin/env node
// Fails when the sources under src/ and test/ cite something a reader of this repository cannot open: a
// document outside it (the shared reference files, the seeds, a bare `§` section of one of them), or a
// `docs/reference/…` file or `#anchor` that does not exist. Captures (`agy-real/…`) and issue numbers are fine.
// Every file is read whole (comments, test names and markdown alike), because a citation in a test title
// misleads as much as one in a comment. A line containing `check-citations: ignore` is skipped.
//
//   node scripts/check-citations.mjs [dir…]     check (default: src test); exit 1 on any problem
//   node scripts/check-citations.mjs --list     print every out-of-repo citation as JSON (for the map)
//   node scripts/check-citations.mjs --verify-map
//        check docs/reference/citation-map.json against the tree: every entry's `old` text is still on its
//        line, every `new` target resolves, and every out-of-repo citation found is covered by an entry.
//   node scripts/check-citations.mjs --apply-map
//        rewrite src/ and test/ with the map: each entry's `old` text becomes its `new` target. An entry is found
//        on its recorded line, else by its recorded line text (files may have moved since the map was made);
//        entries it cannot place are listed and the exit code is 1. Review the diff: prose may need a touch.
//   node scripts/check-citations.mjs --self-test   prove the checks on a planted tree in a temp dir
//   --root <dir>                                   check another project root (default: this repository)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { anchorsOf, slug } from './check-links.mjs';

const SELF = fileURLToPath(import.meta.url);
const rootArg = process.argv.indexOf('--root');
const ROOT = rootArg > 0 ? resolve(process.argv[rootArg + 1] ?? '.') : resolve(dirname(SELF), '..');
const REFERENCE_DIR = 'docs/reference';
const TEXT_EXTENSIONS = /\.(?:[cm]?[jt]sx?|md|json|txt|ya?ml|sh)$/;
const IGNORE_MARK = 'check-citations: ignore';

// Documents that live in ../shared or elsewhere outside the repository. Each pattern names what it catches.
const OUTSIDE = [
  { name: 'agy-cli.md', re: /agy-cli\.md(?:\s*§\s*[A-Z0-9](?:[A-Z0-9.]*[A-Z0-9])?)?/g },
  { name: 'agent-sdk-landscape.md', re: /agent-sdk-landscape\.md(?:\s*§\s*[0-9](?:[0-9.]*[0-9])?)?/g },
  { name: 'landscape §', re: /\blandscape\s*§\s*[0-9](?:[0-9.]*[0-9])?/g },
  { name: 'gemini-gateway.md', re: /gemini-gateway\.md(?:\s*§\s*[0-9](?:[0-9.]*[0-9])?)?/g },
  { name: 'seed', re: /\bseeds?\s+00[0-9]\b/gi },
  { name: 'shared/reference', re: /\bshared\/reference\b/g },
  { name: 'shared/seeds', re: /\bshared\/seeds\b/g },
  { name: 'section sign', re: /§\s*[A-Z0-9](?:[A-Z0-9.]*[A-Z0-9])?/g },
];
// The path ends on a name character, so a sentence's full stop after a citation is not part of it.
const REFERENCE_LINK = /docs\/reference\/([A-Za-z0-9_./-]*[A-Za-z0-9_-])(?:#([\p{L}\p{N}_-]+))?/gu;

/** Every text file under `dir` (or `dir` itself when it is a file), skipping dependencies and build output. */
function walk(dir) {
  const out = [];
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return out;
  if (statSync(abs).isFile()) return TEXT_EXTENSIONS.test(dir) ? [dir] : out;
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    const rel = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      out.push(...walk(rel));
    } else if (entry.isFile() && TEXT_EXTENSIONS.test(entry.name)) out.push(rel);
  }
  return out.sort();
}

const anchorCache = new Map();
/** Why `docs/reference/<file>#<anchor>` does not resolve, or undefined when it does. */
function brokenTarget(file, anchor) {
  const path = join(ROOT, REFERENCE_DIR, file);
  if (!existsSync(path) || !statSync(path).isFile()) return `${REFERENCE_DIR}/${file} does not exist`;
  if (anchor === undefined) return undefined;
  if (!file.endsWith('.md')) return `${REFERENCE_DIR}/${file} is not markdown, so #${anchor} cannot exist`;
  if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(path, 'utf8')));
  return anchorCache.get(path).has(anchor)
    ? undefined
    : `no heading for #${anchor} in ${REFERENCE_DIR}/${file}`;
}

/** Out-of-repo citations in one file: `{file, line, column, text, kind}`, one per match. */
function outsideCitations(file, text) {
  const found = [];
  text.split('\n').forEach((line, i) => {
    if (line.includes(IGNORE_MARK)) return;
    const taken = [];
    for (const { name, re } of OUTSIDE) {
      for (const m of line.matchAll(re)) {
        const start = m.index;
        const end = start + m[0].length;
        // A `§…` already inside an `agy-cli.md §…` match is the same citation, reported once.
        if (taken.some(([s, e]) => start < e && end > s)) continue;
        taken.push([start, end]);
        found.push({ file, line: i + 1, column: start + 1, text: m[0], kind: name });
      }
    }
  });
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** Broken `docs/reference/…` citations in one file. */
function brokenReferences(file, text) {
  const found = [];
  text.split('\n').forEach((line, i) => {
    if (line.includes(IGNORE_MARK)) return;
    for (const m of line.matchAll(REFERENCE_LINK)) {
      const why = brokenTarget(m[1], m[2]);
      if (why) found.push({ file, line: i + 1, column: m.index + 1, text: m[0], why });
    }
  });
  return found;
}

/** Relative links between the reference documents themselves (`[x](hooks.md#y)`, `[x](#y)`). */
function brokenInternalLinks() {
  const found = [];
  for (const file of walk(REFERENCE_DIR).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    text.split('\n').forEach((line, i) => {
      for (const m of line.matchAll(/\]\(([A-Za-z0-9_.-]*?)(?:#([^)\s]+))?\)/g)) {
        if (/^https?:/.test(m[1])) continue;
        const target = m[1] === '' ? relative(REFERENCE_DIR, file) : m[1];
        if (m[1] === '' && m[2] === undefined) continue;
        const why = brokenTarget(target, m[2]);
        if (why) found.push({ file, line: i + 1, column: m.index + 1, text: m[0], why });
      }
    });
  }
  return found;
}

function scan(dirs) {
  const outside = [];
  const broken = [];
  for (const dir of dirs) {
    for (const file of walk(dir)) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      outside.push(...outsideCitations(file, text));
      broken.push(...brokenReferences(file, text));
    }
  }
  return { outside, broken };
}

function verifyMap(outside) {
  const mapPath = join(ROOT, REFERENCE_DIR, 'citation-map.json');
  const problems = [];
  const map = JSON.parse(readFileSync(mapPath, 'utf8'));
  const covered = new Set();
  for (const entry of map.occurrences) {
    const where = `${entry.file}:${entry.line}`;
    const path = join(ROOT, entry.file);
    const line = existsSync(path) ? readFileSync(path, 'utf8').split('\n')[entry.line - 1] : undefined;
    if (line === undefined) problems.push(`${where}: file or line is gone`);
    else if (!line.includes(entry.old))
      problems.push(`${where}: ${JSON.stringify(entry.old)} is not on the line`);
    else {
      const start = line.indexOf(entry.old);
      covered.add(`${where}:${start}:${start + entry.old.length}`);
    }
    for (const m of entry.new.matchAll(REFERENCE_LINK)) {
      const why = brokenTarget(m[1], m[2]);
      if (why) problems.push(`${where}: target ${m[0]}: ${why}`);
    }
    if (!/docs\/reference\//.test(entry.new))
      problems.push(`${where}: new target ${entry.new} is not in ${REFERENCE_DIR}`);
  }
  for (const c of outside) {
    const spans = [...covered].filter((k) => k.startsWith(`${c.file}:${c.line}:`));
    const inside = spans.some((k) => {
      const [s, e] = k.split(':').slice(-2).map(Number);
      return c.column - 1 >= s && c.column - 1 + c.text.length <= e;
    });
    if (!inside)
      problems.push(`${c.file}:${c.line}:${c.column}: ${JSON.stringify(c.text)} has no entry in the map`);
  }
  return problems;
}

/** Where an entry's line is now: its recorded place if unchanged, else the one line with its recorded text. */
function placeEntry(entry, candidates) {
  const path = join(ROOT, entry.file);
  if (existsSync(path)) {
    const lines = readFileSync(path, 'utf8').split('\n');
    if (lines[entry.line - 1] === entry.lineText) return { file: entry.file, index: entry.line - 1 };
    const same = lines.flatMap((l, i) => (l === entry.lineText ? [i] : []));
    if (same.length === 1) return { file: entry.file, index: same[0] };
  }
  const found = [];
  for (const file of candidates) {
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((l, i) => {
        if (l === entry.lineText) found.push({ file, index: i });
      });
  }
  return found.length === 1 ? found[0] : undefined;
}

/** Applies the map to the tree; returns the entries that could not be placed. */
function applyMap(dirs) {
  const map = JSON.parse(readFileSync(join(ROOT, REFERENCE_DIR, 'citation-map.json'), 'utf8'));
  const candidates = dirs.flatMap((d) => walk(d));
  // What each recorded line reads once all its entries are applied: finding that means "already done".
  const finalText = new Map();
  for (const entry of map.occurrences) {
    const key = `${entry.file}:${entry.line}`;
    finalText.set(
      key,
      (finalText.get(key) ?? entry.lineText).replace(entry.old, () => entry.new),
    );
  }
  const edits = new Map();
  const unplaced = [];
  let done = 0;
  for (const entry of map.occurrences) {
    const at = placeEntry(entry, candidates);
    if (at === undefined) {
      const applied = { ...entry, lineText: finalText.get(`${entry.file}:${entry.line}`) };
      if (placeEntry(applied, candidates) !== undefined) done++;
      else unplaced.push(`${entry.file}:${entry.line}: cannot find ${JSON.stringify(entry.lineText)}`);
      continue;
    }
    const key = `${at.file}\0${at.index}`;
    edits.set(key, [...(edits.get(key) ?? []), entry]);
  }
  const files = new Map();
  for (const [key, entries] of edits) {
    const [file, index] = key.split('\0');
    if (!files.has(file)) files.set(file, readFileSync(join(ROOT, file), 'utf8').split('\n'));
    const lines = files.get(file);
    let line = lines[Number(index)];
    for (const entry of entries) {
      if (!line.includes(entry.old)) {
        unplaced.push(`${file}:${Number(index) + 1}: ${JSON.stringify(entry.old)} is not on the line`);
        continue;
      }
      line = line.replace(entry.old, () => entry.new);
    }
    lines[Number(index)] = line;
  }
  for (const [file, lines] of files) writeFileSync(join(ROOT, file), lines.join('\n'));
  console.error(
    `apply-map: rewrote ${edits.size} line(s) in ${files.size} file(s); ${done} entr(ies) were already applied`,
  );
  return unplaced;
}

/** Runs this script on a planted tree and checks what it reports, so the checker itself is tested. */
function selfTest() {
  assert.equal(slug('Hooks file shape'), 'hooks-file-shape');
  assert.equal(slug("Seed 000: byre's agy protocol"), 'seed-000-byres-agy-protocol');
  assert.equal(slug('`call_mcp_tool` and [links](x.md)'), 'call_mcp_tool-and-links');
  assert.deepEqual([...anchorsOf('# A\n## A\n```\n## Not a heading\n```\n### B c')], ['a', 'a-1', 'b-c']);
  const dir = mkdtempSync(join(tmpdir(), 'check-citations-'));
  try {
    const put = (rel, text) => {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text);
    };
    put('docs/reference/x.md', '# X\n## Good anchor\n');
    put(
      'src/ok.ts',
      '// docs/reference/x.md#good-anchor and agy-real/joiomi/print-timeout.stdout, issue #9. See docs/reference/x.md.\n',
    );
    const run = () => {
      try {
        execFileSync(process.execPath, [SELF, '--root', dir], { stdio: 'pipe' });
        return { code: 0, err: '' };
      } catch (e) {
        return { code: e.status, err: String(e.stderr) };
      }
    };
    assert.equal(run().code, 0, 'a clean tree passes');
    const bad = [
      ['agy-cli.md §D.3 "Tool steps"', 'agy-cli.md §D.3'],
      ['(seed 000 "Messages")', 'seed 000'],
      ['landscape §8 R8', 'landscape §8'],
      ['`shared/reference/agy-cli.md`', 'shared/reference'],
      ['hooks.json: §D.6.', '§D.6'],
      ['gemini-gateway.md §2.5', 'gemini-gateway.md §2.5'],
      ['docs/reference/x.md#no-such-anchor', 'no heading for #no-such-anchor'],
      ['docs/reference/missing.md#a', 'missing.md does not exist'],
    ];
    for (const [text, expected] of bad) {
      put('test/bad.test.ts', `it('x', () => {}); // ${text}\n`);
      const r = run();
      assert.equal(r.code, 1, `${text} must fail`);
      assert.ok(r.err.includes(expected), `${text}: expected ${expected} in ${r.err}`);
      assert.ok(r.err.includes('test/bad.test.ts:1:'), `${text}: the report names file and line`);
    }
    put('test/bad.test.ts', '// agy-cli.md §D.3 check-citations: ignore\n');
    assert.equal(run().code, 0, 'an ignored line passes');

    // --apply-map: one entry in place, two on one line of a file that has since moved.
    rmSync(join(dir, 'test/bad.test.ts'));
    const stays = '// usage (agy-cli.md §0.5).';
    const moved = '/** Framing (agy-cli.md §D.3 "Framing caveat"; seed 000). */';
    put('src/stays.ts', `const a = 1;\n${stays}\n`);
    put('src/new-home/moved.ts', `${moved}\nexport {};\n`);
    const entry = (file, line, lineText, old, target) => ({ file, line, lineText, old, new: target });
    put(
      'docs/reference/citation-map.json',
      JSON.stringify({
        occurrences: [
          entry('src/stays.ts', 2, stays, 'agy-cli.md §0.5', 'docs/reference/x.md#good-anchor'),
          entry(
            'src/moved.ts',
            1,
            moved,
            'agy-cli.md §D.3 "Framing caveat"',
            'docs/reference/x.md#good-anchor',
          ),
          entry('src/moved.ts', 1, moved, 'seed 000', 'docs/reference/x.md'),
        ],
      }),
    );
    assert.equal(run().code, 1, 'the planted citations fail before the rewrite');
    execFileSync(process.execPath, [SELF, '--root', dir, '--apply-map'], { stdio: 'pipe' });
    assert.equal(
      readFileSync(join(dir, 'src/stays.ts'), 'utf8'),
      'const a = 1;\n// usage (docs/reference/x.md#good-anchor).\n',
    );
    assert.equal(
      readFileSync(join(dir, 'src/new-home/moved.ts'), 'utf8'),
      '/** Framing (docs/reference/x.md#good-anchor; docs/reference/x.md). */\nexport {};\n',
    );
    assert.equal(run().code, 0, 'the tree passes after the rewrite');
    execFileSync(process.execPath, [SELF, '--root', dir, '--apply-map'], { stdio: 'pipe' });
    assert.equal(run().code, 0, 'applying the map twice is harmless');
    put('src/stays.ts', 'const a = 2;\n');
    let failed;
    try {
      execFileSync(process.execPath, [SELF, '--root', dir, '--apply-map'], { stdio: 'pipe' });
    } catch (e) {
      failed = e;
    }
    assert.equal(failed?.status, 1, 'an entry whose line is gone fails --apply-map');
    assert.ok(String(failed.stderr).includes('src/stays.ts:2: cannot find'), String(failed?.stderr));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.error('check-citations self-test: ok');
}

const args = process.argv.slice(2).filter((a, i, all) => a !== '--root' && all[i - 1] !== '--root');
const dirs = args.filter((a) => !a.startsWith('--'));
const { outside, broken } = args.includes('--self-test')
  ? { outside: [], broken: [] }
  : scan(dirs.length > 0 ? dirs : ['src', 'test']);

if (args.includes('--self-test')) {
  selfTest();
} else if (args.includes('--apply-map')) {
  const unplaced = applyMap(dirs.length > 0 ? dirs : ['src', 'test']);
  for (const u of unplaced) console.error(u);
  process.exitCode = unplaced.length === 0 ? 0 : 1;
} else if (args.includes('--list')) {
  process.stdout.write(`${JSON.stringify(outside, null, 2)}\n`);
} else if (args.includes('--verify-map')) {
  const problems = [
    ...verifyMap(outside),
    ...brokenInternalLinks().map((b) => `${b.file}:${b.line}: ${b.why}`),
  ];
  for (const p of problems) console.error(p);
  console.error(problems.length === 0 ? 'citation map: ok' : `citation map: ${problems.length} problem(s)`);
  process.exitCode = problems.length === 0 ? 0 : 1;
} else {
  const internal = brokenInternalLinks();
  for (const c of outside)
    console.error(`${c.file}:${c.line}:${c.column}: cites ${JSON.stringify(c.text)}, outside the repository`);
  for (const b of [...broken, ...internal]) console.error(`${b.file}:${b.line}:${b.column}: ${b.why}`);
  const total = outside.length + broken.length + internal.length;
  if (total > 0) {
    console.error(
      `check-citations: ${total} problem(s). Cite docs/reference/<file>.md#<anchor> instead ` +
        '(docs/reference/citation-map.json maps the old citations).',
    );
    process.exitCode = 1;
  } else console.error('check-citations: ok');
}

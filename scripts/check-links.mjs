#!/usr/bin/env node
// Fails when a relative link or `#anchor` in the project's markdown does not resolve: README.md, CHANGELOG.md,
// examples/README.md and docs/**/*.md. A link's file must exist (relative to the linking file); an anchor
// into a markdown file must match one of its headings (GitHub's slugs, `-1`/`-2` for repeats) or an explicit
// `<a id>`/`<a name>`. External links (http:, https:, mailto:) are not fetched: CI has no network to trust.
// Links inside fenced code blocks and inline code are not links.
//
// A file the npm package ships (package.json `files`) may link only to files it ships too: the installed package
// has no src/, test/ or scripts/, so such a link is dead for everyone who reads the docs from node_modules.
//
//   node scripts/check-links.mjs [file.md…]   check these files (default: the set above); exit 1 on a problem
//   --root <dir>                              resolve the default set under another project root
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** GitHub's heading slug (scripts/check-citations.mjs uses this one too): markup dropped, punctuation removed. */
export function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** Lines of a markdown file outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown) {
  const out = [];
  let fence;
  markdown.split('\n').forEach((line, i) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1][0];
      else if (f[1][0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ line, number: i + 1 });
  });
  return out;
}

/** Every anchor a markdown file defines. */
export function anchorsOf(markdown) {
  const anchors = new Set();
  const seen = new Map();
  for (const { line } of proseLines(markdown)) {
    for (const a of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(a[1]);
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = slug(h[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The link targets of one markdown file: inline links and images, and reference definitions. */
export function linksOf(markdown) {
  const links = [];
  for (const { line, number } of proseLines(markdown)) {
    const prose = line.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length));
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ target: m[1], line: number, column: m.index + 1 });
    const def = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(prose);
    if (def) links.push({ target: def[1], line: number, column: 1 });
  }
  return links;
}

const anchorCache = new Map();
function anchorsOfFile(path) {
  if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(path, 'utf8')));
  return anchorCache.get(path);
}

/** Why `target`, linked from `file`, does not resolve; undefined when it does. */
export function brokenLink(file, target) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // http:, https:, mailto:, …
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const dest = pathPart === '' ? file : resolve(dirname(file), pathPart);
  if (!existsSync(dest)) return `${target}: no such file ${relative(process.cwd(), dest) || dest}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(dest).isDirectory() || !dest.endsWith('.md')) return undefined; // e.g. #L10 into source: not checked
  return anchorsOfFile(dest).has(anchor) ? undefined : `${target}: no heading for #${anchor}`;
}

function markdownUnder(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...markdownUnder(path));
    else if (entry.name.endsWith('.md')) out.push(path);
  }
  return out.sort();
}

/** The default set of files under `root`. */
export function defaultFiles(root) {
  return [
    ...['README.md', 'CHANGELOG.md', 'examples/README.md']
      .map((f) => join(root, f))
      .filter((f) => existsSync(f)),
    ...markdownUnder(join(root, 'docs')),
  ];
}

/** Files npm puts in every package whatever `files` says (docs.npmjs.com, package.json, "files"). */
const ALWAYS_SHIPPED = /^(package\.json|readme(\.[^/]*)?|license(\.[^/]*)?|licence(\.[^/]*)?)$/i;

/**
 * Whether a path (relative to `root`) is in the npm package: package.json `files` entries are folders or files,
 * a `!` entry takes a folder or file back out. Globs are refused by name rather than half understood.
 * Returns undefined when there is no package.json or no `files` (then everything ships).
 */
export function shippedTest(root) {
  const pkgPath = join(root, 'package.json');
  if (!existsSync(pkgPath)) return undefined;
  const files = JSON.parse(readFileSync(pkgPath, 'utf8')).files;
  if (!Array.isArray(files)) return undefined;
  const norm = (p) => p.replace(/^\.\//, '').replace(/\/+$/, '');
  const include = [];
  const exclude = [];
  for (const entry of files) {
    if (typeof entry !== 'string' || /[*?[\]{}]/.test(entry))
      throw new Error(
        `check-links: package.json files entry ${JSON.stringify(entry)}: only plain paths are understood`,
      );
    if (entry.startsWith('!')) exclude.push(norm(entry.slice(1)));
    else include.push(norm(entry));
  }
  const under = (path, entry) => path === entry || path.startsWith(`${entry}/`);
  return (path) =>
    ALWAYS_SHIPPED.test(path) ||
    (include.some((e) => under(path, e)) && !exclude.some((e) => under(path, e)));
}

/**
 * Why `target`, linked from `file`, points outside the package when `file` ships in it; undefined otherwise
 * (external links, files that do not ship, links to shipped files).
 */
export function unshippedLink(file, target, root, shipped) {
  if (!shipped || /^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const from = relative(root, file);
  if (from.startsWith('..') || !shipped(from)) return undefined;
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  if (pathPart === '') return undefined;
  const to = relative(root, resolve(dirname(file), pathPart));
  if (!to.startsWith('..') && shipped(to)) return undefined;
  return `${target}: ${to} is not in the npm package (package.json files), so the link is dead where the package is installed`;
}

/** Checks `files`; returns the problems as `file:line:column: why`. `root` is the package whose `files` apply. */
export function check(files, root = resolve(import.meta.dirname, '..')) {
  const problems = [];
  const shipped = shippedTest(root);
  for (const file of files) {
    for (const link of linksOf(readFileSync(file, 'utf8'))) {
      const why = brokenLink(file, link.target) ?? unshippedLink(file, link.target, root, shipped);
      if (why) problems.push(`${relative(process.cwd(), file)}:${link.line}:${link.column}: ${why}`);
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('check-links.mjs')) {
  const args = process.argv.slice(2);
  const rootAt = args.indexOf('--root');
  const root = rootAt === -1 ? resolve(import.meta.dirname, '..') : resolve(args[rootAt + 1] ?? '.');
  const named = args.filter((a, i) => a.endsWith('.md') && (rootAt === -1 || i !== rootAt + 1));
  const files = named.length > 0 ? named.map((f) => resolve(f)) : defaultFiles(root);
  let problems;
  try {
    problems = check(files, root);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(2);
  }
  for (const p of problems) console.error(p);
  console.error(
    problems.length === 0
      ? `check-links: ok (${files.length} files)`
      : `check-links: ${problems.length} broken link(s) in ${files.length} files`,
  );
  process.exitCode = problems.length === 0 ? 0 : 1;
}

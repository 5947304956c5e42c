#!/usr/bin/env node
// Release notes from CHANGELOG.md, offline: prints one version's section (the heading `## <version>` or
// `## [<version>]` up to the next `## `), default `Unreleased`. `npm run release-notes -- 0.2.0 > notes.md`
// gives the text of a GitHub release. Exits 1 when the section is missing or empty.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const version = process.argv[2] ?? 'Unreleased';
const lines = readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8').split('\n');
const heading = (line) => /^## /.test(line);
const wanted = (line) =>
  new RegExp(`^## \\[?${version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\]?(\\s|$)`).test(line);
const start = lines.findIndex(wanted);
if (start < 0) {
  console.error(`release-notes: CHANGELOG.md has no "## ${version}" section`);
  process.exit(1);
}
const rest = lines.slice(start + 1);
const end = rest.findIndex(heading);
const body = (end < 0 ? rest : rest.slice(0, end)).join('\n').trim();
if (!body) {
  console.error(`release-notes: the "## ${version}" section of CHANGELOG.md is empty`);
  process.exit(1);
}
console.log(body);

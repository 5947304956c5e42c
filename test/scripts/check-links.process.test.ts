// scripts/check-links.mjs: the project's own markdown resolves, and a planted broken file link, a missing
// anchor and a link hidden in code are each handled as documented, and a shipped doc linking outside the npm
// package (package.json files) is flagged.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const script = join(root, 'scripts/check-links.mjs');
// Made by a hook, not while vitest collects the file (a `vitest list` would leave it behind).
let planted: string;
beforeAll(() => {
  planted = mkdtempSync(join(tmpdir(), 'agy-sdk-links-'));
});
afterAll(() => rmSync(planted, { recursive: true, force: true }));

function run(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

describe('check-links', () => {
  it('passes on this repository (README, CHANGELOG, examples/README, docs/**)', () => {
    const r = run([]);
    expect(r.stderr).toMatch(/check-links: ok \(\d+ files\)/);
    expect(r.status).toBe(0);
  });

  it('reports a missing file, a missing anchor and a bad anchor in the same file; ignores code and URLs', () => {
    mkdirSync(join(planted, 'docs/guides'), { recursive: true });
    writeFileSync(
      join(planted, 'docs/guides/a.md'),
      [
        '# Title',
        '## Two words',
        '## Two words',
        '[ok](b.md#the-b-heading) [ok](#two-words-1) [ok](https://example.com/nope) [ok](../../README.md)',
        '[gone](missing.md) [bad](b.md#nope) [self](#no-such-heading)',
        '`[not a link](nowhere.md)`',
        '```',
        '[in a fence](nowhere.md)',
        '```',
      ].join('\n'),
    );
    writeFileSync(join(planted, 'docs/guides/b.md'), '# The `B` heading\n');
    writeFileSync(join(planted, 'README.md'), '[guide](docs/guides/a.md#title)\n');
    const r = run(['--root', planted]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('a.md:5:1: missing.md: no such file');
    expect(r.stderr).toContain('b.md#nope: no heading for #nope');
    expect(r.stderr).toContain('#no-such-heading: no heading for #no-such-heading');
    expect(r.stderr).not.toContain('nowhere.md');
    expect(r.stderr).toMatch(/check-links: 3 broken link\(s\) in 3 files/);
  });

  it('flags a link from a file the npm package ships to one it does not (package.json files)', () => {
    const pkg = join(planted, 'pkg');
    for (const dir of ['docs/internal', 'src']) mkdirSync(join(pkg, dir), { recursive: true });
    writeFileSync(
      join(pkg, 'package.json'),
      JSON.stringify({ name: 'p', files: ['dist', 'docs', '!docs/internal', 'README.md'] }),
    );
    writeFileSync(join(pkg, 'src/x.ts'), 'export {};\n');
    writeFileSync(join(pkg, 'CONTRIBUTING.md'), '# Contributing\n');
    writeFileSync(join(pkg, 'LICENSE'), 'license\n');
    writeFileSync(
      join(pkg, 'docs/a.md'),
      '# A\n[src](../src/x.ts) [internal](internal/n.md) [ok](../README.md#p) [ok](../LICENSE) [ok](https://x.org/src/y.ts)\n',
    );
    // Not shipped itself: its links may go anywhere in the repository.
    writeFileSync(join(pkg, 'docs/internal/n.md'), '# N\n[src](../../src/x.ts)\n');
    writeFileSync(join(pkg, 'README.md'), '# P\n[contributing](CONTRIBUTING.md) [docs](docs/a.md#a)\n');
    const r = run(['--root', pkg]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'a.md:2:1: ../src/x.ts: src/x.ts is not in the npm package (package.json files), so the link is dead where the package is installed',
    );
    expect(r.stderr).toContain('a.md:2:20: internal/n.md: docs/internal/n.md is not in the npm package');
    expect(r.stderr).toContain('README.md:2:1: CONTRIBUTING.md: CONTRIBUTING.md is not in the npm package');
    expect(r.stderr).not.toContain('n.md:2');
    expect(r.stderr).toMatch(/check-links: 3 broken link\(s\) in 3 files/);

    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'p', files: ['docs/**/*.md'] }));
    const globbed = run(['--root', pkg]);
    expect(globbed.status).not.toBe(0);
    expect(globbed.stderr).toContain(
      'package.json files entry "docs/**/*.md": only plain paths are understood',
    );
  });
});

// scripts/check-links.mjs: the project's own markdown resolves, and a planted broken file link, a missing
// anchor and a link hidden in code are each handled as documented.
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
});

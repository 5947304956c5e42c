// scripts/check-layers.mjs as `npm run lint` runs it: it reads docs/architecture.md under --root, exits 0 on a tree
// that keeps the table, 1 with every breach listed on one that does not, and 1 naming the problem when the
// document has no layer table.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const script = join(root, 'scripts/check-layers.mjs');
const TABLE = [
  '# Map',
  '',
  '| folder | may import | why |',
  '|---|---|---|',
  '| `errors.ts` | nothing | bottom |',
  '| `agent/` | `errors.ts` | top |',
  '',
].join('\n');

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'agy-sdk-layers-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A project root under the temp dir with these files (path → text). */
function plant(name: string, files: Record<string, string>): string {
  const dir = join(base, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function run(dir: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [script, '--root', dir], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('check-layers (the command)', () => {
  it('exits 0 on a tree that keeps the table', () => {
    const dir = plant('ok', {
      'docs/architecture.md': TABLE,
      'src/errors.ts': 'export class E extends Error {}\n',
      'src/agent/agent.ts': "import { E } from '../errors.js';\nexport const e = new E();\n",
    });
    const r = run(dir);
    expect(r.stdout).toContain('layer rules hold: 2 files, 2 rows, no cycles');
    expect(r.status).toBe(0);
  });

  it('exits 1 listing each breach: an import the row does not list, and a folder under no row', () => {
    const dir = plant('bad', {
      'docs/architecture.md': TABLE,
      'src/errors.ts': "import type { X } from './agent/agent.js';\nexport type E = X;\n",
      'src/agent/agent.ts': 'export type X = 1;\n',
      'src/extra/x.ts': 'export const x = 1;\n',
    });
    const r = run(dir);
    expect(r.stderr).toContain('layer rules broken (2):');
    expect(r.stderr).toContain(
      'errors.ts:1: imports agent/agent.ts, which the row of `errors.ts` does not list',
    );
    expect(r.stderr).toContain('extra/x.ts: under no row of the layer table');
    expect(r.status).toBe(1);
  });

  it('exits 1 when docs/architecture.md has no layer table', () => {
    const dir = plant('none', { 'docs/architecture.md': '# Map\n', 'src/errors.ts': 'export {};\n' });
    const r = run(dir);
    expect(r.stderr).toContain('check-layers: docs/architecture.md: 0 tables headed "folder | may import"');
    expect(r.status).toBe(1);
  });
});

// scripts/check-layers.mjs: the layer table is read from docs/architecture.md (here a fixture) and enforced
// exactly: an import its row does not list fails, whatever the import's form; a file under no row fails; a
// malformed table fails before anything is checked; cycles, TS `private` and bare `zod` are still caught.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations.
import { checkLayers, importsOf, parseLayerTable } from '../../scripts/check-layers.mjs';

/** A row of the layer table, as the script returns it. */
type Row = { folders: string[]; allow: string[]; line: number };

const root = resolve(import.meta.dirname, '../..');
const fixture = readFileSync(join(root, 'test/fixtures/check-layers/architecture.md'), 'utf8');
const rows: Row[] = parseLayerTable(fixture);

/** A tree that keeps every row of the fixture's table, plus `extra` files. */
function tree(extra: Record<string, string> = {}): Map<string, string> {
  return new Map(
    Object.entries({
      'errors.ts': 'export class E extends Error {}\n',
      'model/step.ts': "import { E } from '../errors.js';\nexport type Step = { e: E };\n",
      'conn/host.ts': "import type { Step } from '../model/step.js';\nexport type Host = { s: Step };\n",
      'conn/agy/index.ts': "export { run } from './run.js';\n",
      'conn/agy/run.ts': "import type { Host } from '../host.js';\nexport const run = (h: Host) => h;\n",
      'agent/agent.ts': "import { run } from '../conn/agy/index.js';\nexport const go = run;\n",
      'index.ts': "export { go } from './agent/agent.js';\n",
      ...extra,
    }),
  );
}

describe('parseLayerTable', () => {
  it('reads the one table headed "folder | may import": each row\'s paths, its allow-list and its line', () => {
    expect(rows.map((r) => r.folders)).toEqual([
      ['errors.ts'],
      ['model/'],
      ['conn/*'],
      ['conn/agy/'],
      ['agent/', 'index.ts'],
    ]);
    expect(rows[0]?.allow).toEqual([]);
    expect(rows[4]?.allow).toEqual(['errors.ts', 'model/', 'conn/*', 'conn/agy/index.ts']);
    expect(rows[0]?.line).toBe(fixture.split('\n').indexOf('| `errors.ts` | nothing | The bottom. |') + 1);
  });

  it('refuses prose in a may-import cell, so "not `x/`" can never read as a permission', () => {
    const doc = fixture.replace(
      '| `errors.ts`, `model/` | The seam.',
      '| `errors.ts`, not `model/` | The seam.',
    );
    expect(() => parseLayerTable(doc)).toThrow(/"not" is not a path in backticks/);
  });

  it('refuses a document with no layer table, or with two', () => {
    expect(() => parseLayerTable('# Nothing here\n')).toThrow(/0 tables headed "folder \| may import"/);
    const table = fixture.slice(fixture.indexOf('| folder | may import'), fixture.indexOf('Text after'));
    expect(() => parseLayerTable(`${fixture}\n${table}`)).toThrow(/2 tables headed/);
  });

  it('refuses a path listed in two rows', () => {
    const doc = fixture.replace('| `conn/*` |', '| `conn/*`, `model/` |');
    expect(() => parseLayerTable(doc)).toThrow(/`model\/` is also in the row on line/);
  });
});

describe('checkLayers', () => {
  it('passes a tree that keeps the table', () => {
    expect(checkLayers(rows, tree())).toEqual({ problems: [], checked: 7 });
  });

  it('fails an import its row does not list, naming the file, line and target', () => {
    const r = checkLayers(
      rows,
      tree({
        'model/bad.ts': "export type X = 1;\nimport { go } from '../agent/agent.js';\nexport const y = go;\n",
      }),
    );
    expect(r.problems).toEqual([
      'model/bad.ts:2: imports agent/agent.ts, which the row of `model/` does not list',
    ]);
  });

  it("fails a reach past a backend's face, a type-only import, an `import()` and an `import()` type alike", () => {
    const r = checkLayers(
      rows,
      tree({
        'agent/reach.ts': [
          "import type { Host } from '../conn/host.js';",
          "import type { run } from '../conn/agy/run.js';",
          "export type R = typeof import('../conn/agy/run.js');",
          "export const load = () => import('../conn/agy/run.js');",
          "export { run as again } from '../conn/agy/run.js';",
          'export type H = Host | typeof run;',
        ].join('\n'),
      }),
    );
    const why = 'imports conn/agy/run.ts, which the row of `agent/`, `index.ts` does not list';
    expect(r.problems).toEqual([2, 3, 4, 5].map((line) => `agent/reach.ts:${line}: ${why}`));
  });

  it('fails a file under no row of the table, and still checks the rest', () => {
    const r = checkLayers(rows, tree({ 'extra/thing.ts': 'export const x = 1;\n' }));
    expect(r.problems).toEqual([
      'extra/thing.ts: under no row of the layer table (add its folder to the table)',
    ]);
  });

  it('reads `dir/*` as the files directly in dir: a subfolder of it is not under that row', () => {
    const unlisted = checkLayers(rows, tree({ 'conn/acp/index.ts': 'export const x = 1;\n' }));
    expect(unlisted.problems).toEqual([
      'conn/acp/index.ts: under no row of the layer table (add its folder to the table)',
    ]);
  });

  it('puts a file under the row naming it most closely: a file row beats `dir/*`, which beats `dir/`', () => {
    const doc = fixture.replace(
      '| `agent/`, `index.ts` |',
      '| `conn/index.ts` | `errors.ts` | An entry of its own. |\n| `agent/`, `index.ts` |',
    );
    const own: Row[] = parseLayerTable(doc);
    // conn/index.ts is named by `conn/*` and by its own row: its own row's list applies, not the seam's.
    const r = checkLayers(
      own,
      tree({ 'conn/index.ts': "import type { Step } from '../model/step.js';\nexport type S = Step;\n" }),
    );
    expect(r.problems).toEqual([
      'conn/index.ts:1: imports model/step.ts, which the row of `conn/index.ts` does not list',
    ]);
    // A file of the seam (`conn/*`) and one of the backend (`conn/agy/`) keep their rows.
    expect(checkLayers(own, tree()).problems).toEqual([]);
  });

  it('still fails a cycle, a TS `private` member and a bare `zod` import', () => {
    const r = checkLayers(
      rows,
      tree({
        'model/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
        'model/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };\n",
        'model/c.ts': "import { z } from 'zod';\nexport class C {\n  private x = z.string();\n}\n",
      }),
    );
    expect(r.problems).toEqual([
      "model/c.ts:1: imports 'zod': import 'zod/v4' (the peer range includes zod 3.25)",
      'model/c.ts:3: TS `private` modifier: use a JS `#private` member',
      'import cycle: model/a.ts ↔ model/b.ts',
    ]);
  });
});

describe('importsOf', () => {
  it('finds every form of import, with its line, and nothing in strings or comments', () => {
    const text = [
      "import a from './a.js';",
      "import type { B } from './b.js';",
      "export * from './c.js';",
      "const d = await import('./d.js');",
      "type E = import('./e.js').E;",
      "import f = require('./f.js');",
      "// import g from './g.js';",
      'const s = "import h from \'./h.js\'";',
    ].join('\n');
    const found = importsOf('x.ts', text).imports.map(
      (i: { spec: string; line: number }) => `${i.line} ${i.spec}`,
    );
    expect(found).toEqual(['1 ./a.js', '2 ./b.js', '3 ./c.js', '4 ./d.js', '5 ./e.js', '6 ./f.js']);
  });
});

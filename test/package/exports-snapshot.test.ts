// The public surface, pinned: every name each entry point exports (package.json `exports`, read by
// scripts/entry-exports.mjs with the TypeScript compiler, as check-doc-facts.mjs reads them), one file per entry
// under test/package/exports/. Adding or removing an export is then a visible diff in review; after an
// intended change, `npx vitest run test/package/exports-snapshot.test.ts -u` rewrites the files.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations.
import { entryExports, entryFiles } from '../../scripts/entry-exports.mjs';

type Exports = Map<string, { names: Set<string>; values: string[] }>;

const files: string[] = entryFiles();
const exports: Exports = entryExports(files);

/** One line per name, sorted; values marked so a type turning into a value (or back) shows too. */
function listing(file: string): string {
  const entry = exports.get(file);
  if (!entry) throw new Error(`no exports read for ${file}`);
  const values = new Set(entry.values);
  const lines = [...entry.names].sort().map((name) => (values.has(name) ? `${name} (value)` : name));
  return `${lines.join('\n')}\n`;
}

describe('public exports', () => {
  it('reads every entry point of package.json', () => {
    expect(files).toEqual([
      'src/index.ts',
      'src/wire.ts',
      'src/testing/index.ts',
      'src/gateway/index.ts',
      'src/fleet/index.ts',
      'src/connection/index.ts',
      'src/pool/index.ts',
      'src/ai-sdk/index.ts',
      'src/ag-ui/index.ts',
    ]);
  });

  it.each(files)('%s exports exactly the pinned names', async (file) => {
    const name = file
      .replace(/^src\//, '')
      .replace(/\/index\.ts$|\.ts$/, '')
      .replace(/\//g, '-');
    await expect(listing(file)).toMatchFileSnapshot(`./exports/${name === 'index' ? 'root' : name}.txt`);
  });

  it('exports each name from one entry point only', () => {
    const seen = new Map<string, string[]>();
    for (const file of files)
      for (const n of exports.get(file)?.names ?? []) seen.set(n, [...(seen.get(n) ?? []), file]);
    const twice = [...seen].filter(([, where]) => where.length > 1).map(([n, where]) => `${n}: ${where}`);
    expect(twice).toEqual([]);
  });

  // The anchors: Codex's root ~40 names, Hono's 21, MCP's server entry 82; the backend author's names live on
  // agy-sdk/connection, agy's tool catalogue included.
  it('keeps the root to what an agent author uses: at most 120 names and 40 values, no seam, no pool', () => {
    const root = exports.get('src/index.ts');
    expect(root?.names.size).toBeLessThanOrEqual(120);
    expect(root?.values.length).toBeLessThanOrEqual(40);
    const elsewhere = [
      'Connection',
      'ConnectionHost',
      'ConnectionFactory',
      'TurnRequest',
      'TurnSink',
      'AgentPool',
    ];
    expect(elsewhere.filter((n) => root?.names.has(n))).toEqual([]);
  });

  it('keeps the MCP content blocks off the root, on agy-sdk/wire', () => {
    const blocks = [
      'AudioContent',
      'EmbeddedResource',
      'ImageContent',
      'McpContentAnnotations',
      'ResourceLink',
      'TextContent',
    ];
    const root = exports.get('src/index.ts')?.names ?? new Set();
    const wire = exports.get('src/wire.ts')?.names ?? new Set();
    expect(blocks.filter((b) => root.has(b))).toEqual([]);
    expect(blocks.filter((b) => !wire.has(b))).toEqual([]);
  });
});

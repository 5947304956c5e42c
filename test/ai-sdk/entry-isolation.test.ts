// `agy-sdk/ai-sdk` needs the AI SDK for its types only: the built subpath imports nothing of `ai` or
// `@ai-sdk/*` at run time (so it loads where they are absent), and the core never imports the subpath.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const dir = join(root, 'dist/ai-sdk');

/** Module specifiers of the runtime imports of a built file (type imports are erased by tsc). */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
}

describe.skipIf(!existsSync(dir))('agy-sdk/ai-sdk entry isolation (dist/)', () => {
  it('imports no AI SDK package at run time', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.js'));
    expect(files.length).toBeGreaterThan(0);
    const external = files.flatMap((f) => imports(join(dir, f))).filter((s) => !s.startsWith('.'));
    expect(external).toEqual([]);
  });

  it('the core entry points never import it', () => {
    for (const entry of ['index.js', 'testing/index.js'])
      expect(imports(join(root, 'dist', entry)).some((s) => s.includes('ai-sdk'))).toBe(false);
  });
});

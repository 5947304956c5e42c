/**
 * `bullmq` and `ioredis` are optional peers: the package root must never load them, only `agy-sdk/fleet` may.
 * Checked on the built import graph (dist/), which is what a user's `import 'agy-sdk'` loads.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = resolve(fileURLToPath(new URL('../../dist', import.meta.url)));
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;

/** Every bare package a built entry reaches through its relative imports. */
function packagesReached(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else if (!spec.startsWith('node:'))
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  };
  visit(join(dist, entry));
  return packages;
}

describe.skipIf(!existsSync(join(dist, 'index.js')))('optional fleet peers', () => {
  it('the root entry (and testing, gateway) never import bullmq or ioredis; agy-sdk/fleet does', () => {
    for (const entry of ['index.js', 'testing/index.js', 'gateway/index.js']) {
      const reached = packagesReached(entry);
      expect(reached.has('bullmq'), entry).toBe(false);
      expect(reached.has('ioredis'), entry).toBe(false);
    }
    const fleet = packagesReached('fleet/index.js');
    expect(fleet.has('bullmq')).toBe(true);
    expect(fleet.has('ioredis')).toBe(true);
  });
});

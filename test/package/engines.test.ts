// Every installed package (production and dev, nested ones too) supports the Node versions we declare. A
// dependency that needs a newer Node (as @google/genai 3.x needs 22) warns on `npm ci` and may break for a
// user on Node 20.19, which the README promises.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(join(root, 'package.json'));
const semver = require('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
  validRange(range: string): string | null;
};

/** Packages whose `engines.node` may exclude our floor, each with the reason. */
const AI_SDK =
  'the AI SDK (Node >= 22): a dev dependency, and for users the peer of the opt-in `agy-sdk/ai-sdk` only (docs/guides/ai-sdk.md#install-and-runtimes); tested on Node 20';
const ALLOWED: Record<string, string> = {
  ai: AI_SDK,
  '@ai-sdk/provider': AI_SDK,
  '@ai-sdk/provider-utils': AI_SDK,
  '@ai-sdk/gateway': AI_SDK,
};

interface Found {
  path: string;
  name: string;
  version: string;
  node: string | undefined;
}

/** Every package under `node_modules`, recursively (scoped and nested ones included). */
function installed(dir: string, out: Found[] = []): Found[] {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
    const path = join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      installed(path, out);
      continue;
    }
    const manifest = join(path, 'package.json');
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name?: string;
        version?: string;
        engines?: { node?: unknown };
      };
      const node = typeof pkg.engines?.node === 'string' ? pkg.engines.node : undefined;
      out.push({ path, name: pkg.name ?? entry.name, version: pkg.version ?? '?', node });
    }
    installed(join(path, 'node_modules'), out);
  }
  return out;
}

const ownRange = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node;

describe.skipIf(!existsSync(join(root, 'node_modules')))('dependency engines', () => {
  it('declares Node >= 20.19, as the README says', () => {
    expect(ownRange).toBe('>=20.19');
    expect(semver.minVersion(ownRange)?.version).toBe('20.19.0');
  });

  it("every installed package's engines.node admits our floor (20.19.0) and the running Node", () => {
    const floor = semver.minVersion(ownRange)!.version;
    const packages = installed(join(root, 'node_modules'));
    // The tree is large (vitest, the MCP SDK, genai): a walk that finds little is itself a bug.
    expect(packages.length).toBeGreaterThan(100);
    const bad = packages
      .filter((p) => p.node !== undefined && !(p.name in ALLOWED))
      .filter(
        (p) =>
          semver.validRange(p.node!) === null ||
          !semver.satisfies(floor, p.node!) ||
          !semver.satisfies(process.versions.node, p.node!),
      )
      .map((p) => `${relative(root, p.path)}@${p.version}: engines.node ${JSON.stringify(p.node)}`);
    expect(bad).toEqual([]);
  });

  it('pins @google/genai to a release that supports Node 20', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'node_modules/@google/genai/package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(semver.satisfies('20.19.0', pkg.engines.node)).toBe(true);
  });
});

// `agy-sdk/gateway` is a declared subpath: it resolves by name from the built package (run `npm run build`
// first; skipped with a reason when dist/ is absent) and its declarations need no DOM types.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/gateway/helpers.js';

const dist = join(projectRoot, 'dist/gateway/index.js');

describe.skipIf(!existsSync(dist))('agy-sdk/gateway subpath (needs npm run build)', () => {
  it('is declared in package.json exports', () => {
    const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; import: string; default: string }>;
    };
    // `default` too, so require() (Node >= 20.19) resolves it.
    expect(pkg.exports['./gateway']).toEqual({
      types: './dist/gateway/index.d.ts',
      import: './dist/gateway/index.js',
      default: './dist/gateway/index.js',
    });
  });

  it('resolves by name and starts a gateway usable without an Agent', () => {
    const out = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const { createGateway } = await import('agy-sdk/gateway'); const gw = await createGateway({ upstream: { kind: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'k' } }); console.log(gw.url.startsWith('http://127.0.0.1:'), gw.token.length > 20); await gw.close();",
      ],
      { cwd: projectRoot, encoding: 'utf8' },
    );
    expect(out.stderr).toBe('');
    expect(out.stdout.trim()).toBe('true true');
  });

  it('declarations carry no DOM-only types', () => {
    for (const file of ['index.d.ts', 'gateway.d.ts', 'upstream/upstream.d.ts', 'errors.d.ts']) {
      expect(readFileSync(join(projectRoot, 'dist/gateway', file), 'utf8')).not.toMatch(
        /\b(?:HeadersInit|RequestInit|lib="dom")\b/,
      );
    }
  });
});

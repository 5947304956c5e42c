// The OS seam holds: the process layer, the hook relays, the MCP start check's process and the simulator's hook
// runner reach process groups, signals, /proc, `/bin/sh` and the OS's name only through src/platform/, and code
// outside src/platform/ imports it only through its index.ts, and platform/ itself sits low (errors, logger, internal).
// So another OS is one more implementation there.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** The files behind the seam (everything they do that depends on the OS goes through `platform/`). */
const SEAM_USERS = [
  'connection/process/',
  'connection/agy/session/hook-commands.ts',
  'connection/agy/session/hook-bin-dir.ts',
  'connection/agy/session/hook-relay.ts',
  'connection/agy/session/mcp-stdio-relay.ts',
  'connection/agy/session/mcp-stdio-relay-config.ts',
  'connection/mcp-check/stdio-process.ts',
  'testing/simulator/hook-runner.ts',
];

/** What only `platform/` may do: signal by pid, start a group, read /proc, name a shell or the OS. */
const OS_SPECIFIC: [RegExp, string][] = [
  [/process\.kill\(/, 'process.kill('],
  [/\bdetached\s*:/, 'detached:'],
  [/['"`]\/proc\b/, "'/proc"],
  [/['"`]\/bin\/sh\b|#!\/bin\/sh/, '/bin/sh'],
  [/process\.platform\b/, 'process.platform'],
  [/process\.getuid\b/, 'process.getuid'],
  [/['"`]\/tmp\b/, "'/tmp"],
];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The code of a file without its comments (a comment may name what the code must not do). */
function code(path: string): string {
  return readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
}

const files = tsFiles(SRC).map((path) => relative(SRC, path).split('\\').join('/'));

describe('the OS seam', () => {
  it('the files behind it do nothing OS-specific themselves', () => {
    const users = files.filter((f) => SEAM_USERS.some((u) => (u.endsWith('/') ? f.startsWith(u) : f === u)));
    expect(users.length).toBeGreaterThan(SEAM_USERS.length);
    const found: string[] = [];
    for (const file of users) {
      const text = code(join(SRC, file));
      for (const [pattern, name] of OS_SPECIFIC) if (pattern.test(text)) found.push(`${file}: ${name}`);
    }
    expect(found).toEqual([]);
  });

  it('code outside platform/ imports it only through platform/index.ts', () => {
    const deep: string[] = [];
    for (const file of files.filter((f) => !f.startsWith('platform/'))) {
      for (const m of code(join(SRC, file)).matchAll(/from\s+'([^']*\/platform\/[^']*)'/g)) {
        if (!m[1]!.endsWith('/platform/index.js')) deep.push(`${file}: ${m[1]}`);
      }
    }
    expect(deep).toEqual([]);
  });

  it('platform/ imports only errors.ts, logger.ts, internal/ and itself', () => {
    const outside: string[] = [];
    for (const file of files.filter((f) => f.startsWith('platform/'))) {
      for (const m of code(join(SRC, file)).matchAll(/from\s+'(\.[^']*)'/g)) {
        const to = relative(SRC, join(SRC, file, '..', m[1]!))
          .split('\\')
          .join('/');
        const allowed = ['errors.js', 'logger.js'].includes(to) || /^(internal|platform)\//.test(to);
        if (!allowed) outside.push(`${file}: ${m[1]}`);
      }
    }
    expect(outside).toEqual([]);
  });
});

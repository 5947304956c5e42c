// The program itself: --help documents every exit code, --version, and an unknown command is a usage error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_START_FAILED, EXIT_USAGE, TURN_EXIT_CODES } from '../../src/cli/exit-codes.js';
import { BUILT, ROOT, runCli } from '../helpers/cli.js';

describe.skipIf(!BUILT)('agy-sdk', () => {
  it('--help lists every command and one exit code per turn status, all distinct', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['run', 'chat', 'gateway', 'doctor'])
      expect(run.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    for (const [status, code] of Object.entries(TURN_EXIT_CODES))
      expect(run.stdout).toMatch(new RegExp(`^\\s+${code}  turn ${status}\\b`, 'm'));
    const codes = [...Object.values(TURN_EXIT_CODES), EXIT_USAGE, EXIT_START_FAILED];
    expect(new Set(codes).size).toBe(codes.length);
    // The README's table says the same.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const [status, code] of Object.entries(TURN_EXIT_CODES))
      expect(readme).toMatch(new RegExp(`\\| ${code} \\| \`${status}\``));
  });

  it('--version prints the package version; an unknown command exits 2', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
      bin: Record<string, string>;
    };
    expect((await runCli(['--version'])).stdout.trim()).toBe(pkg.version);
    expect(pkg.bin['agy-sdk']).toBe('./dist/cli/main.js');
    expect(pkg.bin['agy-sim']).toBe('./dist/testing/simulator/main.js');
    const unknown = await runCli(['frobnicate']);
    expect(unknown.code).toBe(EXIT_USAGE);
    expect(unknown.stderr).toContain('frobnicate');
  });
});

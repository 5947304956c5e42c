// Without ../shared, the run ends with one line naming it and how many tests it skipped
// (test/helpers/shared-notice-reporter.ts, added by its plugin in vitest.config.ts to whatever reporters run,
// including reporters given on the command line as .ci/run does).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { SHARED_DIR, sharedNotice, usesShared } from './shared-notice-reporter.js';

const root = resolve(import.meta.dirname, '../..');
const execFileP = promisify(execFile);

describe('the ../shared notice', () => {
  it('counts a file that reads ../shared itself or through a local helper, and not others', () => {
    expect(usesShared(join(root, 'test/connection/agy/stream-json/normalize.captures.process.test.ts'))).toBe(
      true,
    );
    expect(usesShared(join(root, 'test/gateway/upstream/upstream-fixtures.test.ts'))).toBe(true);
    expect(usesShared(join(root, 'test/cli/render/spinner.test.ts'))).toBe(false);
    const files: Record<string, string> = {
      '/t/a.test.ts': "import { load } from './helper.js';",
      '/t/helper.ts': "const dir = join(root, '../shared/fixtures');",
      '/t/b.test.ts': "import { x } from './other.js';",
      '/t/other.ts': 'export const x = 1;',
    };
    expect(usesShared('/t/a.test.ts', (f) => files[f])).toBe(true);
    expect(usesShared('/t/b.test.ts', (f) => files[f])).toBe(false);
  });

  it('is one line naming the folder and the count, only when the folder is missing and tests were skipped', () => {
    expect(sharedNotice(145, false)).toBe(
      `145 tests skipped: ${SHARED_DIR} (agy-real captures, upstream cassettes, references) is missing; put the shared folder next to the repository to run them.`,
    );
    expect(sharedNotice(1, false)).toMatch(/^1 test skipped: /);
    expect(sharedNotice(145, true)).toBeUndefined();
    expect(sharedNotice(0, false)).toBeUndefined();
  });
});

describe('the ../shared notice in a real vitest run', () => {
  /**
   * Runs vitest on a one-file project inside the repository (so `vitest` resolves) whose config uses the
   * plugin, with `AGY_SDK_SHARED_DIR` pointing at a folder that does not exist.
   */
  async function runVitest(reporterArgs: string[]): Promise<{ stdout: string; dir: string }> {
    mkdirSync(join(root, 'test/.artifacts'), { recursive: true });
    const dir = mkdtempSync(join(root, 'test/.artifacts/shared-notice-'));
    dirs.push(dir);
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      `import { sharedNoticePlugin } from ${JSON.stringify(join(root, 'test/helpers/shared-notice-reporter.ts'))};
export default { plugins: [sharedNoticePlugin()], test: { include: ['*.test.mjs'], reporters: ['default'] } };
`,
    );
    writeFileSync(
      join(dir, 'needs-shared.test.mjs'),
      `import { existsSync } from 'node:fs';
import { it } from 'vitest';
it.skipIf(!existsSync('../shared'))('reads the captures', () => {});
it.skipIf(!existsSync('../shared'))('reads the references', () => {});
it('runs anyway', () => {});
`,
    );
    const vitest = join(root, 'node_modules/vitest/vitest.mjs');
    const { stdout } = await execFileP(
      process.execPath,
      [vitest, 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs'), ...reporterArgs],
      {
        cwd: dir,
        env: { ...process.env, AGY_SDK_SHARED_DIR: join(dir, 'no-shared-here') },
        timeout: 120_000,
      },
    );
    return { stdout, dir };
  }
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const line = (dir: string) =>
    `2 tests skipped: ${join(dir, 'no-shared-here')} (agy-real captures, upstream cassettes, references) is missing`;

  it('prints once with the config reporters', { timeout: 150_000 }, async () => {
    const { stdout, dir } = await runVitest([]);
    expect(stdout.split(line(dir)).length - 1).toBe(1);
  });

  it('still prints with explicit --reporter flags (.ci/run: default and json), and json still writes', {
    timeout: 150_000,
  }, async () => {
    const out = 'results.json';
    const { stdout, dir } = await runVitest(['--reporter=default', '--reporter=json', `--outputFile=${out}`]);
    expect(stdout.split(line(dir)).length - 1).toBe(1);
    const results = JSON.parse(readFileSync(join(dir, out), 'utf8')) as { numPendingTests: number };
    expect(results.numPendingTests).toBe(2);
  });
});

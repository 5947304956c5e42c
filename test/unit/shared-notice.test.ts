// Without ../shared, the run ends with one line naming it and how many tests it skipped
// (test/helpers/shared-notice-reporter.ts, registered in vitest.config.ts next to the default reporter).
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_DIR, sharedNotice, usesShared } from '../helpers/shared-notice-reporter.js';

const root = resolve(import.meta.dirname, '../..');

describe('the ../shared notice', () => {
  it('counts a file that reads ../shared itself or through a local helper, and not others', () => {
    expect(usesShared(join(root, 'test/captures/replay.test.ts'))).toBe(true);
    expect(usesShared(join(root, 'test/gateway/upstream-fixtures.test.ts'))).toBe(true);
    expect(usesShared(join(root, 'test/cli/spinner.test.ts'))).toBe(false);
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

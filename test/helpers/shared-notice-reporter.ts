/**
 * A vitest reporter (next to the default one) that says, in one line at the end of a run, how many tests were
 * skipped because `../shared` (the agy-real captures, the upstream cassettes and the reference documents next to
 * the repository) is missing. A test counts when it was skipped and its file, or a local module the file
 * imports, reads from `../shared`. Silent when `../shared` exists or nothing was skipped for it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { SHARED_DIR } from './shared-dir.js';

/** Where the shared fixtures are expected (`AGY_SDK_SHARED_DIR` moves it: test/helpers/shared-dir.ts). */
export { SHARED_DIR };

/** Text that names `../shared`, or resolves it through test/helpers/shared-dir.ts. */
const USES_SHARED = /\.\.\/shared\b|['"]shared['"]|\/shared-dir\.js'/;

/** True when `file`, or a local module it imports (one level), reads from `../shared`. */
export function usesShared(file: string, read: (f: string) => string | undefined = readText): boolean {
  const text = read(file);
  if (text === undefined) return false;
  if (USES_SHARED.test(text)) return true;
  for (const m of text.matchAll(/from\s+'(\.[^']+)'/g)) {
    const spec = m[1]!.replace(/\.js$/, '.ts');
    const imported = read(join(dirname(file), spec));
    if (imported !== undefined && USES_SHARED.test(imported)) return true;
  }
  return false;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The notice for `skipped` tests, or undefined. */
export function sharedNotice(skipped: number, sharedExists: boolean): string | undefined {
  if (sharedExists || skipped === 0) return undefined;
  return `${skipped} test${skipped === 1 ? '' : 's'} skipped: ${SHARED_DIR} (agy-real captures, upstream cassettes, references) is missing; put the shared folder next to the repository to run them.`;
}

/** The reporter. Registered by {@link sharedNoticePlugin}, so reporters given on the command line keep it. */
export default class SharedNoticeReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const sharedExists = existsSync(SHARED_DIR);
    if (sharedExists) return;
    let skipped = 0;
    for (const module of testModules) {
      if (!usesShared(module.moduleId)) continue;
      for (const test of module.children.allTests()) if (test.result().state === 'skipped') skipped += 1;
    }
    const notice = sharedNotice(skipped, sharedExists);
    if (notice) process.stdout.write(`\n${notice}\n`);
  }
}

/**
 * A Vite plugin that adds the reporter to whatever reporters the run resolved: vitest's `--reporter` flags
 * replace the config's `reporters` list (`.ci/run` passes `--reporter=default --reporter=json`), and the notice
 * must not disappear with it. Vitest calls `configureVitest` after resolving the reporters and before creating
 * them, so an instance pushed here joins the run's reporters.
 */
export function sharedNoticePlugin(): {
  name: string;
  configureVitest(context: { vitest: { config: { reporters: unknown[] } } }): void;
} {
  return {
    name: 'agy-sdk:shared-notice',
    configureVitest({ vitest }) {
      const reporters = vitest.config.reporters;
      // Also named on the command line (`--reporter=./test/helpers/shared-notice-reporter.ts`): once is enough.
      const present = reporters.some(
        (r) =>
          r instanceof SharedNoticeReporter ||
          (Array.isArray(r) && typeof r[0] === 'string' && r[0].endsWith('shared-notice-reporter.ts')),
      );
      if (!present) reporters.push(new SharedNoticeReporter());
    },
  };
}

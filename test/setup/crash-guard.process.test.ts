// The suite-wide crash guard (test/setup/crash-guard.ts) fails the test during which the process saw an
// uncaught exception or an unhandled rejection: a child vitest runs a fixture file under the guard, with
// vitest's own unhandled-error report switched off, and its JSON report must mark exactly those tests failed.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const config = fileURLToPath(new URL('../fixtures/guard/vitest.config.ts', import.meta.url));

interface JsonReport {
  testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
}

describe('the crash guard', () => {
  it('fails a test that throws from a timer or leaves a rejection unhandled, and only those', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crash-guard-'));
    try {
      const out = join(dir, 'report.json');
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = execFile(
          process.execPath,
          [
            join(root, 'node_modules/vitest/vitest.mjs'),
            'run',
            '--config',
            config,
            '--reporter=json',
            `--outputFile=${out}`,
            '--maxWorkers=1',
          ],
          { cwd: root, timeout: 120_000 },
          () => {},
        );
        child.on('error', reject);
        child.on('exit', (c) => resolve(c));
      });
      expect(code).toBe(1);
      const report = JSON.parse(await readFile(out, 'utf8')) as JsonReport;
      const results = report.testResults.flatMap((f) => f.assertionResults);
      const byTitle = Object.fromEntries(results.map((r) => [r.title, r]));
      expect(byTitle['throws from a timer']?.status).toBe('failed');
      expect(byTitle['throws from a timer']?.failureMessages.join('\n')).toContain('thrown from a timer');
      expect(byTitle['rejects unhandled']?.status).toBe('failed');
      expect(byTitle['rejects unhandled']?.failureMessages.join('\n')).toContain('rejected, never handled');
      expect(byTitle['stays clean']?.status).toBe('passed');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

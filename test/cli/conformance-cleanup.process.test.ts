// `runConformance` leaves nothing of its own in the temp directory: the simulator state its probes share is
// removed when they end (it was left behind by every run, 121 directories in /tmp after a day of test runs);
// the cassettes it was asked to write stay.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../src/cli/conformance.js';

// This worker's temp directory, for this file only: os.tmpdir() reads TMPDIR at each call.
const savedTmpdir = process.env.TMPDIR;
let root: string;
beforeAll(() => {
  // Made here, not while vitest collects the file (a `vitest list` would leave it behind).
  root = mkdtempSync(join(tmpdir(), 'agy-sdk-conformance-cleanup-'));
  process.env.TMPDIR = root;
});
afterAll(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  rmSync(root, { recursive: true, force: true });
});

describe('runConformance cleanup', () => {
  it('removes its simulator state and keeps the cassettes it wrote', async () => {
    const dir = join(root, 'cassettes');
    const report = await runConformance({ offline: true, probes: ['text', 'resume'], dir });
    expect(report.errors).toEqual({});
    expect(readdirSync(dir).sort()).toEqual(
      Object.values(report.cassettes)
        .map((file) => file.slice(dir.length + 1))
        .sort(),
    );
    expect(readdirSync(root).filter((name) => name.startsWith('agy-sdk-conformance-state-'))).toEqual([]);
  }, 120_000);
});

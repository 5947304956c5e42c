// The version policy (docs/reference/versions.md#supported-versions): one simulator profile per supported line,
// and "newer than tested" by release line.
import { describe, expect, it } from 'vitest';
import {
  newerThanTested,
  newestTestedLine,
  SUPPORTED_AGY_LINES,
} from '../../../src/connection/agy/version-policy.js';
import { DEFAULT_AGY_VERSION, profileFor } from '../../../src/testing/simulator/profile.js';

describe('the agy version policy', () => {
  it('each supported line is tested on a simulator profile of that line, resting on what the policy says', () => {
    for (const { line, tested, evidence } of SUPPORTED_AGY_LINES) {
      expect(tested.startsWith(`${line}.`)).toBe(true);
      expect(profileFor(tested)).toMatchObject({ version: tested, evidence });
    }
    // The simulator's default is the newest captured build, on a supported line.
    expect(SUPPORTED_AGY_LINES.map((l) => l.tested)).toContain(DEFAULT_AGY_VERSION);
  });

  it('a build is newer than tested only on a line past the newest one', () => {
    expect(newestTestedLine().line).toBe('1.5');
    for (const v of ['1.5.0', '1.5.14', '1.3.3', '1.1.8']) expect(newerThanTested(v)).toBe(false);
    for (const v of ['1.6.0', '1.10.2', '2.0.0']) expect(newerThanTested(v)).toBe(true);
  });
});

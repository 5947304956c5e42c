// How the replayer ends a recorded exit: a death by signal is played as exit 128 + N (the shell's convention),
// never by signalling itself (docs/reference/process.md#exit-by-a-signal). The replay through the SDK:
// test/testing/cassette/replay-hostile.process.test.ts.
import { constants } from 'node:os';
import { describe, expect, it } from 'vitest';
import { exitStatus } from '../../../src/testing/cassette/replay-agy.js';

describe('exitStatus', () => {
  it('plays an exit code as it is, and a signal as 128 + its number', () => {
    expect(exitStatus({ t: 0, type: 'exit', code: 3, signal: null })).toBe(3);
    expect(exitStatus({ t: 0, type: 'exit', code: null, signal: null })).toBe(1);
    expect(exitStatus({ t: 0, type: 'exit', code: null, signal: 'SIGTERM' })).toBe(
      128 + constants.signals.SIGTERM,
    );
    expect(exitStatus({ t: 0, type: 'exit', code: null, signal: 'SIGKILL' })).toBe(137);
  });
});

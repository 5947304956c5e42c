// The `fast` project's guard (test/setup/no-spawn.ts): in a file not named *.process.test.ts, every
// node:child_process call throws before anything starts, naming the file and the convention.
import * as cp from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('no child process in the fast project', () => {
  it('spawn, execFileSync and the namespace binding all throw, naming this file', () => {
    for (const call of [
      () => spawn('true'),
      () => execFileSync('true'),
      () => cp.exec('true'),
      () => cp.fork('x.mjs'),
    ]) {
      expect(call).toThrow(
        /no-spawn\.test\.ts called child_process\.\w+\("(true|x\.mjs)"\).*\*\.process\.test\.ts/,
      );
    }
  });
});

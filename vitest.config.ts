import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Forks, not threads: tests send signals, spawn process trees and read /proc of their own process.
    pool: 'forks',
    // One module graph per worker, not per file: re-importing the SDK (zod schemas, the MCP SDK) for each of
    // ~100 files cost about half the CPU time of the fast files. No test mocks modules or relies on a fresh
    // module state; global state a file changes (fake timers, process listeners) is restored by that file.
    isolate: false,
    // Sized for a loaded 2-core machine shared with other work, where a simulator turn that takes 1 s idle can
    // take 20; tests that wait on tsc or npm set their own, longer timeouts.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests spawn real processes; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});

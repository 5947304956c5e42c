import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Sized for a loaded 2-core machine shared with other work, where a simulator turn that takes 1 s idle can
    // take 20; tests that wait on tsc or npm set their own, longer timeouts.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests spawn real processes; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});

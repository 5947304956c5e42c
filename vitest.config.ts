import { defineConfig } from 'vitest/config';
import { sharedNoticePlugin } from './test/helpers/shared-notice-reporter.js';

export default defineConfig({
  // One closing line naming `../shared` and how many tests it skips when it is missing, whatever reporters the
  // command line picks (test/helpers/shared-notice-reporter.ts).
  plugins: [sharedNoticePlugin()],
  test: {
    // Tests mirror src/ (test/<path under src>/<name>.test.ts); a file that starts any child process is named
    // `*.process.test.ts`. Two projects: `fast` (in-memory, `npm run test:fast`, its setup refuses a spawn) and
    // `process` (the simulator, Gemini CLI, Redis, tmux, Chromium, the packed package). `npm test` runs both.
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.process.test.ts'],
          // Added to the shared setupFiles below (`extends: true` concatenates them).
          setupFiles: ['test/setup/no-spawn.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'process', include: ['test/**/*.process.test.ts'] },
      },
    ],
    // An uncaught exception or unhandled rejection fails the test it happened in (test/setup/crash-guard.ts).
    setupFiles: ['test/setup/crash-guard.ts'],
    // Simulators started without their own state directory share one the run removes (test/setup/sim-state.ts).
    globalSetup: ['test/setup/sim-state.ts'],
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
    // More workers than the 2 cores: much of the suite waits rather than computes (agents starting, Gemini CLI's
    // 7 s initialize, resume tests waiting for the wall-clock minute to turn). Measured on an idle 2-core box,
    // same commit: 2 workers 208 s, 3 workers 181 s, 4 workers 151 s, all green.
    maxWorkers: 4,
    // The default output (the shared-notice plugin above adds its line to any reporters).
    reporters: ['default'],
  },
});

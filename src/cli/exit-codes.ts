/**
 * The `agy-sdk` command's exit codes: one per turn status, so scripts can branch on `$?` without parsing
 * output. Documented in the README and in `agy-sdk --help`; keep the three in step.
 */
import type { TurnStatus } from '../index.js';

/** Exit code for each turn status (`agy-sdk run`). */
export const TURN_EXIT_CODES: Readonly<Record<TurnStatus, number>> = {
  success: 0,
  error: 1,
  denied: 3,
  timeout: 4,
  quota_exhausted: 5,
  rate_limited: 6,
  auth_failed: 7,
  budget_exceeded: 8,
  canceled: 9,
  // 128 + SIGINT, the shell's convention for "stopped by Ctrl-C".
  interrupted: 130,
};

/** Bad flags or arguments, a bad schema file, a bad provider setup: nothing was started. */
export const EXIT_USAGE = 2;
/** agy could not be found or did not start (sign-in, bad flags, crash before `init`). */
export const EXIT_START_FAILED = 10;
/** `agy-sdk doctor` found at least one failing check. */
export const EXIT_DOCTOR_FAILED = 1;

/** The exit code of a finished turn. Unknown statuses (a newer SDK) count as errors. */
export function exitCodeFor(status: TurnStatus): number {
  return TURN_EXIT_CODES[status] ?? TURN_EXIT_CODES.error;
}

/** The table shown by `--help` and copied into the README. */
export function exitCodeHelp(): string {
  const rows: [number, string][] = [
    ...Object.entries(TURN_EXIT_CODES).map(([status, code]): [number, string] => [
      code,
      code === EXIT_DOCTOR_FAILED ? `turn ${status}; doctor found a problem` : `turn ${status}`,
    ]),
    [EXIT_USAGE, 'bad arguments or configuration (nothing started)'],
    [EXIT_START_FAILED, 'agy not found or failed to start'],
  ];
  rows.sort((a, b) => a[0] - b[0]);
  return `Exit codes:\n${rows.map(([code, what]) => `  ${String(code).padStart(3)}  ${what}`).join('\n')}\n`;
}

/**
 * The operating-system seam (the `Platform` interface, `types.ts`) and the choice of its implementation by
 * `process.platform`. Everything outside `platform/` reaches the OS-specific parts of the process layer and the
 * hook relays through this file only.
 *
 * Supported: Linux (`linux.ts`: process groups and /proc) and macOS (`darwin.ts`: process groups only, no
 * process table). Windows and every other OS get an {@link UnsupportedError} naming the platform from
 * {@link currentPlatform}, which is called only where a process is started or a hook relay is written: the rest
 * of the SDK (the gateway, cassette replay, in-memory connections) still loads and runs there.
 */
import { UnsupportedError } from '../errors.js';
import { type BoundedCommandOptions, type BoundedRun, runBoundedOn } from './bounded-command.js';
import { darwinPlatform } from './darwin.js';
import { linuxPlatform } from './linux.js';
import type { Platform } from './types.js';

export {
  type BoundedCommandOptions,
  type BoundedOutput,
  type BoundedRun,
  type BoundedStop,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TERM_GRACE_MS,
  describeRun,
} from './bounded-command.js';
export type {
  Found,
  FoundPair,
  HookRelayKind,
  NewGroupSpawnOptions,
  Platform,
  ProcessEntry,
  ProcessIdentity,
  ProcessTable,
  RelayFiles,
  RelayScript,
  RelayScriptSpec,
} from './types.js';
export { MARK_VAR } from './types.js';

/** The feature named by the error for an unsupported OS. */
const FEATURE = 'platform';

/**
 * The implementation for `name` (a `process.platform` value).
 *
 * @throws UnsupportedError for an OS the SDK has no implementation for (Windows, the BSDs, AIX, …), naming it.
 */
export function platformFor(name: NodeJS.Platform): Platform {
  switch (name) {
    case 'linux':
      return linuxPlatform;
    case 'darwin':
      return darwinPlatform;
    case 'win32':
      throw new UnsupportedError(
        FEATURE,
        "agy-sdk cannot start or supervise processes on Windows (process.platform 'win32'): it has no process groups for the no-orphan guarantee, and agy runs hooks through `cmd /c`, which cannot run the SDK's /bin/sh hook relays; Linux and macOS are supported",
      );
    default:
      throw new UnsupportedError(
        FEATURE,
        `agy-sdk cannot start or supervise processes on process.platform '${name}'; Linux and macOS are supported`,
      );
  }
}

/**
 * The implementation for the OS this process runs on.
 *
 * @throws UnsupportedError on an OS without one (see {@link platformFor}).
 */
export function currentPlatform(): Platform {
  return platformFor(process.platform);
}

/**
 * Runs a short-lived command with a bounded end on the current platform (`bounded-command.ts`): its own process
 * group, SIGTERM then SIGKILL of the group at its timeout or an abort, output capped. Never rejects; on an OS
 * without a platform the result is `spawn-failed` with the {@link UnsupportedError}.
 */
export function runBounded(
  command: string,
  args: readonly string[],
  options: BoundedCommandOptions,
): Promise<BoundedRun> {
  let platform: Platform;
  try {
    platform = currentPlatform();
  } catch (error) {
    const unsupported = error as UnsupportedError;
    return Promise.resolve({
      stdout: '',
      stderr: '',
      truncated: false,
      kind: 'spawn-failed',
      error: unsupported,
    });
  }
  return runBoundedOn(platform, command, args, options);
}

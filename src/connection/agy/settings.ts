/**
 * What the Agent constructor needs of the agy backend to validate a config and split it into groups, apart
 * from the backend itself: the field groups, the session checks, the instruction renderers and the path checks.
 * These load with the package; the backend (its session runtime, listener, process code) loads at `start()`.
 */
import { fieldsFeeding } from '../config-groups.js';
import type { SessionRuntimeOptions } from './session/session-runtime.js';
import type { AgyProcessOptions } from './stream-json/process-options.js';

export { hiddenSegmentReal, validateDataDir } from '../tool-server/hidden-path.js';
export { alwaysOnRule, isReplaceInstructions, renderInstructions } from './session/rules.js';
export { validateSession } from './session/validate-session.js';

/**
 * The config fields of the session group: the session's files, listener and hooks. Derived from each field's
 * description (`feeds: ['session']`, `connection/config-fields.ts`); the compiler checks the backend takes them.
 */
export const AGY_SESSION_FIELDS = fieldsFeeding('session') satisfies readonly (keyof SessionRuntimeOptions)[];

/** The config fields of the launch group: how the agy process is started and read (`feeds: ['launch']`). */
export const AGY_LAUNCH_FIELDS = fieldsFeeding('launch') satisfies readonly (keyof AgyProcessOptions)[];

/** The config fields of the watchdog group: the process's and the turn's time limits (`feeds: ['watchdog']`). */
export const AGY_WATCHDOG_FIELDS = fieldsFeeding('watchdog') satisfies readonly (keyof AgyProcessOptions)[];

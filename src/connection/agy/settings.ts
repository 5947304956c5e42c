/**
 * What the Agent constructor needs of the agy backend to validate a config and split it into groups, apart
 * from the backend itself: the field groups, the session checks, the instruction renderers and the path checks.
 * These load with the package; the backend (its session runtime, listener, process code) loads at `start()`.
 */
import type { SessionRuntimeOptions } from './session/session-runtime.js';
import type { AgyProcessOptions } from './stream-json/process-options.js';

export { hiddenSegmentReal, validateDataDir } from '../tool-server/hidden-path.js';
export { alwaysOnRule, isReplaceInstructions, renderInstructions } from './session/rules.js';
export { validateSession } from './session/validate-session.js';

/** The config fields of the session group: the session's files, listener and hooks. */
export const AGY_SESSION_FIELDS = [
  'dataDir',
  'systemInstructions',
  'notes',
  'toolTransport',
  'mcpServers',
  'hookPlacement',
  'hookTimeoutMs',
  'hookRelay',
  'isolation',
  'linkNativeAuth',
  'settingsOverrides',
  'skillsPaths',
  'subagents',
] as const satisfies readonly (keyof SessionRuntimeOptions)[];

/** The config fields of the launch group: how the agy process is started and read. */
export const AGY_LAUNCH_FIELDS = [
  'agyPath',
  'model',
  'effort',
  'mode',
  'sandbox',
  'conversationId',
  'resume',
  'extraArgs',
  'maxLineBytes',
  'onBadLine',
  'onStderr',
] as const satisfies readonly (keyof AgyProcessOptions)[];

/** The config fields of the watchdog group: the process's and the turn's time limits. */
export const AGY_WATCHDOG_FIELDS = [
  'startTimeoutMs',
  'idleTimeoutMs',
  'turnTimeoutMs',
  'interruptGraceMs',
  'closeGraceMs',
] as const satisfies readonly (keyof AgyProcessOptions)[];

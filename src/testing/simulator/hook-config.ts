/**
 * `hooks.json` files (docs/reference/hooks.md#hooks-file-shape): top-level keys are bundle names, each bundle
 * `{enabled?, PreToolUse, PostToolUse, PreInvocation, PostInvocation, Stop, SessionStart}`. Tool events hold
 * matcher groups `{matcher, hooks: [handler]}`; the others hold handlers `{type, command, timeout?}` directly.
 *
 * agy reads these as protojson: unknown keys and events are dropped silently, while a value of the wrong type
 * is a parse error that drops the whole file (with a stderr warning here), as a JSON syntax error does.
 */

/** Hook events that run around a tool call and take matcher groups. */
export const TOOL_HOOK_EVENTS = ['PreToolUse', 'PostToolUse'] as const;
/** Hook events whose entries are handlers directly. */
export const FLAT_HOOK_EVENTS = ['PreInvocation', 'PostInvocation', 'Stop', 'SessionStart'] as const;

export type HookEvent = (typeof TOOL_HOOK_EVENTS)[number] | (typeof FLAT_HOOK_EVENTS)[number];

/** agy's default per-hook timeout is disputed (~5 s vs 60 s); the simulator uses 30 s. */
export const DEFAULT_HOOK_TIMEOUT_S = 30;

/** One runnable hook command. */
export interface HookCommand {
  /**
   * A command line: run by `/bin/sh -c` (so it may carry arguments, quotes and redirections), or split on
   * whitespace without a shell on 1.3.3+ (`AgyProfile.hookCommand`).
   */
  command: string;
  timeoutMs: number;
  /** Tool events only: the tool names it applies to; `undefined` matches every tool. */
  matcher?: RegExp | undefined;
  /** Where it came from, for warnings: `<file> bundle <name>`. */
  source: string;
}

/** Every loaded hook, per event, in discovery order (files in order, then bundles and entries as written). */
export type HookTable = Record<HookEvent, HookCommand[]>;

export function emptyHookTable(): HookTable {
  return {
    PreToolUse: [],
    PostToolUse: [],
    PreInvocation: [],
    PostInvocation: [],
    Stop: [],
    SessionStart: [],
  };
}

/** A type mismatch: protojson would refuse the whole file. */
class HookFileError extends Error {}

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses one hooks file and appends its hooks to `table`.
 *
 * @param warn receives stderr warnings (a dropped file, an unusable handler or matcher).
 * @returns whether the file was loaded (false when it was dropped whole).
 */
export function loadHooksFile(
  text: string,
  file: string,
  table: HookTable,
  warn: (line: string) => void,
): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    warn(`warning: ignoring hooks file ${file}: ${(err as Error).message}`);
    return false;
  }
  const found = emptyHookTable();
  try {
    if (!isObj(value)) throw new HookFileError('the top level must be an object of bundles');
    for (const [bundleName, bundle] of Object.entries(value)) {
      if (!isObj(bundle)) throw new HookFileError(`bundle "${bundleName}" must be an object`);
      if (bundle.enabled !== undefined && typeof bundle.enabled !== 'boolean') {
        throw new HookFileError(`bundle "${bundleName}": enabled must be a boolean`);
      }
      if (bundle.enabled === false) continue;
      const source = `${file} bundle "${bundleName}"`;
      for (const event of TOOL_HOOK_EVENTS) {
        for (const [i, group] of list(bundle[event], `${bundleName}.${event}`).entries()) {
          const where = `${bundleName}.${event}[${i}]`;
          if (!isObj(group)) throw new HookFileError(`${where} must be an object`);
          if (group.matcher !== undefined && typeof group.matcher !== 'string') {
            throw new HookFileError(`${where}.matcher must be a string`);
          }
          let matcher: RegExp | undefined;
          try {
            matcher = toolMatcher(group.matcher as string | undefined);
          } catch (err) {
            warn(
              `warning: ${source}: ignoring ${event} matcher ${JSON.stringify(group.matcher)}: ${(err as Error).message}`,
            );
            continue;
          }
          for (const [j, handler] of list(group.hooks, `${where}.hooks`).entries()) {
            const command = handlerCommand(handler, `${where}.hooks[${j}]`, source, warn);
            if (command !== undefined) found[event].push({ ...command, matcher });
          }
        }
      }
      for (const event of FLAT_HOOK_EVENTS) {
        for (const [i, handler] of list(bundle[event], `${bundleName}.${event}`).entries()) {
          const command = handlerCommand(handler, `${bundleName}.${event}[${i}]`, source, warn);
          if (command !== undefined) found[event].push(command);
        }
      }
    }
  } catch (err) {
    if (!(err instanceof HookFileError)) throw err;
    warn(`warning: ignoring hooks file ${file}: ${err.message}`);
    return false;
  }
  for (const event of Object.keys(found) as HookEvent[]) table[event].push(...found[event]);
  return true;
}

function list(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new HookFileError(`${where} must be an array`);
  return value;
}

/** `""`, `"*"` or no matcher: every tool; otherwise a regular expression the whole tool name must match. */
function toolMatcher(matcher: string | undefined): RegExp | undefined {
  if (matcher === undefined || matcher === '' || matcher === '*') return undefined;
  return new RegExp(`^(?:${matcher})$`);
}

function handlerCommand(
  handler: unknown,
  where: string,
  source: string,
  warn: (line: string) => void,
): HookCommand | undefined {
  if (!isObj(handler)) throw new HookFileError(`${where} must be an object`);
  for (const key of ['type', 'command', 'prompt', 'model'] as const) {
    if (handler[key] !== undefined && typeof handler[key] !== 'string') {
      throw new HookFileError(`${where}.${key} must be a string`);
    }
  }
  if (handler.timeout !== undefined && typeof handler.timeout !== 'number') {
    throw new HookFileError(`${where}.timeout must be a number`);
  }
  if (handler.type === 'prompt') {
    warn(`warning: ${source}: ${where} is a "prompt" hook, which the simulator cannot run; ignoring it`);
    return undefined;
  }
  if (handler.type !== 'command' || typeof handler.command !== 'string' || handler.command === '') {
    warn(`warning: ${source}: ${where} is not a {"type":"command","command":…} handler; ignoring it`);
    return undefined;
  }
  const seconds =
    typeof handler.timeout === 'number' && handler.timeout > 0 ? handler.timeout : DEFAULT_HOOK_TIMEOUT_S;
  return { command: handler.command, timeoutMs: Math.round(seconds * 1000), source };
}

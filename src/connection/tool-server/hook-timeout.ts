// Apart from the hook listener, so the Agent reads it without loading the listener (and node:http) on import.
/**
 * The default hook timeout. agy's own per-hook timeout is reported as 5 s or 60 s depending on the version,
 * so whoever writes `hooks.json` should set the entry's `timeout` above this, letting our answer (or our
 * fail-closed fallback) arrive before agy gives up on the command.
 */
export const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

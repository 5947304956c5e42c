/**
 * Builds agy's argv and environment (docs/reference/stream-json.md#launch-flags; issue #2 "Launch").
 * Prompts, schemas and instructions never go in argv: they travel on stdin or in files.
 */

/** The levels `--effort` may be given; agy's `--help` lists `low|medium|high` (docs/reference/stream-json.md#flags-by-version). */
export type AgyEffortLevel = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/** agy's `--mode` values: `plan` (no edits) and `accept-edits` (edits in the workspaces without a prompt). */
export type AgyMode = 'plan' | 'accept-edits';

/** What a launch needs. All paths are absolute and already validated. */
export interface LaunchSpec {
  /** Directories passed with one `--add-dir` each: the user's workspaces, then the session directory. */
  addDirs: string[];
  /** The model (`--model`). */
  model?: string | undefined;
  /**
   * Reasoning effort (`--effort`). `xhigh` and `max` are refused before launch on every build known so far
   * (`flag-support.ts`).
   */
  effort?: AgyEffortLevel | undefined;
  /** agy's `--mode` (docs/reference/stream-json.md#flags-by-version): passed only to builds that know it. */
  mode?: AgyMode | undefined;
  /** agy's `--sandbox`: its terminal tools run in its sandbox. Passed only to builds that know it. */
  sandbox?: boolean | undefined;
  /** Resume this conversation (`--conversation`). */
  conversationId?: string | undefined;
  /** Path of the JSON Schema file for `--json-schema`. */
  jsonSchemaFile?: string | undefined;
  /** Pass `--dangerously-skip-permissions`. */
  skipPermissions?: boolean | undefined;
  /** Extra flags appended verbatim (an escape hatch for flags this SDK does not model). */
  extraArgs?: readonly string[] | undefined;
}

/** The argv for a long-lived stream-json agy process. Never `-p`: a bare `-p` eats the next flag. */
export function buildAgyArgs(spec: LaunchSpec): string[] {
  const args = ['--input-format', 'stream-json', '--output-format', 'stream-json', '--print-timeout', '0'];
  for (const dir of spec.addDirs) args.push('--add-dir', dir);
  if (spec.model) args.push('--model', spec.model);
  if (spec.effort) args.push('--effort', spec.effort);
  if (spec.mode) args.push('--mode', spec.mode);
  if (spec.sandbox) args.push('--sandbox');
  if (spec.conversationId) args.push('--conversation', spec.conversationId);
  if (spec.jsonSchemaFile) args.push('--json-schema', spec.jsonSchemaFile);
  if (spec.skipPermissions) args.push('--dangerously-skip-permissions');
  if (spec.extraArgs) args.push(...spec.extraArgs);
  return args;
}

/** `process.env` with the caller's overrides merged over it (not replacing it), and auto-update disabled. */
export function buildAgyEnv(
  overrides: Record<string, string | undefined> | undefined,
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const [key, value] of Object.entries(overrides ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  // The updater takes a lock and can stall automation (docs/reference/stream-json.md#auto-update-off).
  env.AGY_CLI_DISABLE_AUTO_UPDATE = '1';
  return env;
}

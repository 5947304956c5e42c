/**
 * Built-in tool names per backend. agy and Gemini CLI (over ACP) name the same built-in tools differently
 * (docs/reference/acp.md#tool-names); policies, `confirmRunCommand()`, the read-only presets and
 * `workspaceOnly` are written with agy's names, and users may write either. This is the one table; policy
 * matching (`policy/evaluate.ts` `matchesTarget`) and the ACP backend read it.
 */

/** agy's built-in tool name → Gemini CLI's name for the same tool. */
export const GEMINI_CLI_TOOL_NAMES: Readonly<Record<string, string>> = Object.freeze({
  run_command: 'run_shell_command',
  write_to_file: 'write_file',
  view_file: 'read_file',
  replace_file_content: 'replace',
  multi_replace_file_content: 'replace',
  // agy's third edit tool (agy 1.3.1 init.tools): Gemini CLI edits with `replace`, so a rule on either edit reaches it.
  sed_file: 'replace',
  list_dir: 'list_directory',
  find_by_name: 'glob',
  grep_search: 'grep_search',
  read_url_content: 'web_fetch',
  search_web: 'google_web_search',
});

/**
 * agy's built-in tool name → the names agy_acp_server uses for it: its `client_*` tool (named inside the ACP
 * `title`) and the ACP `kind` a call falls back to when its title names no tool
 * (agy-real/mluigi-htui-agy-acp-server-1.1.1/agy_acp_turn.jsonl: `client_view_file` kind `read`,
 * `client_create_file` kind `edit`; docs/reference/acp.md#agy-acp-server).
 */
export const AGY_ACP_SERVER_TOOL_NAMES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  view_file: ['client_view_file', 'read'],
  write_to_file: ['client_create_file', 'edit'],
  replace_file_content: ['edit'],
  multi_replace_file_content: ['edit'],
  sed_file: ['edit'],
  run_command: ['execute'],
});

/**
 * The ACP `kind`s among those names (`read`, `edit`, `execute`): categories, not tools, so several tools share
 * one. A name reached through a kind is not an alias of the others that share it.
 */
export const ACP_TOOL_KINDS: ReadonlySet<string> = new Set(
  Object.values(AGY_ACP_SERVER_TOOL_NAMES)
    .flat()
    .filter((n) => !n.startsWith('client_')),
);

/** Another backend's name → agy's names (one name can stand for several agy tools). */
const AGY_NAMES_OF = new Map<string, string[]>();
const addOther = (agy: string, other: string) =>
  AGY_NAMES_OF.set(other, [...(AGY_NAMES_OF.get(other) ?? []), agy]);
for (const [agy, gemini] of Object.entries(GEMINI_CLI_TOOL_NAMES)) addOther(agy, gemini);
for (const [agy, others] of Object.entries(AGY_ACP_SERVER_TOOL_NAMES))
  for (const o of others) addOther(agy, o);

/** Every name a built-in tool goes by across backends, `name` first (an unknown name is only itself). */
export function builtinToolAliases(name: string): readonly string[] {
  const out = new Set([name]);
  const gemini = Object.hasOwn(GEMINI_CLI_TOOL_NAMES, name) ? GEMINI_CLI_TOOL_NAMES[name] : undefined;
  if (gemini !== undefined) out.add(gemini);
  if (Object.hasOwn(AGY_ACP_SERVER_TOOL_NAMES, name))
    for (const o of AGY_ACP_SERVER_TOOL_NAMES[name] ?? []) out.add(o);
  for (const agy of AGY_NAMES_OF.get(name) ?? []) {
    out.add(agy);
    // agy_acp_server's `client_*` name and its `kind` name the same tool.
    for (const o of AGY_ACP_SERVER_TOOL_NAMES[agy] ?? []) out.add(o);
  }
  return [...out];
}

/**
 * agy's tools a `BuiltinTools` name stands for besides its own: the Python SDK's one edit tool
 * (`BuiltinTools.EDIT_FILE`) is three on agy 1.3.1 (docs/reference/stream-json.md#built-in-tools). A rule on
 * `replace_file_content` covers all three; a rule on one of the others covers only that one (and its other
 * backends' names), so `deny('sed_file')` next to `allow(BuiltinTools.EDIT_FILE)` still leaves the other edits.
 */
export const BUILTIN_TOOL_GROUPS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  replace_file_content: ['multi_replace_file_content', 'sed_file'],
});

/**
 * Whether a policy target written as `target` names the built-in tool `name` on some backend, or is the
 * `BuiltinTools` name of a group `name` belongs to ({@link BUILTIN_TOOL_GROUPS}).
 */
export function sameBuiltinTool(target: string, name: string): boolean {
  if (target === name || builtinToolAliases(target).includes(name)) return true;
  return Object.hasOwn(BUILTIN_TOOL_GROUPS, target) && (BUILTIN_TOOL_GROUPS[target] ?? []).includes(name);
}

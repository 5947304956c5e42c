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
  list_dir: 'list_directory',
  find_by_name: 'glob',
  grep_search: 'grep_search',
  read_url_content: 'web_fetch',
  search_web: 'google_web_search',
});

/** Gemini CLI's name → agy's names (one Gemini tool can stand for several agy tools). */
const AGY_NAMES_OF = new Map<string, string[]>();
for (const [agy, gemini] of Object.entries(GEMINI_CLI_TOOL_NAMES)) {
  AGY_NAMES_OF.set(gemini, [...(AGY_NAMES_OF.get(gemini) ?? []), agy]);
}

/** Every name a built-in tool goes by across backends, `name` first (an unknown name is only itself). */
export function builtinToolAliases(name: string): readonly string[] {
  const out = new Set([name]);
  const gemini = Object.hasOwn(GEMINI_CLI_TOOL_NAMES, name) ? GEMINI_CLI_TOOL_NAMES[name] : undefined;
  if (gemini !== undefined) out.add(gemini);
  for (const agy of AGY_NAMES_OF.get(name) ?? []) out.add(agy);
  return [...out];
}

/** Whether a policy target written as `target` names the built-in tool `name` on some backend. */
export function sameBuiltinTool(target: string, name: string): boolean {
  return target === name || builtinToolAliases(target).includes(name);
}

/** Gemini CLI's MCP tool names: `mcp_<server>_<tool>` (docs/reference/acp.md#tool-names). */
export const GEMINI_CLI_MCP_PREFIX = 'mcp_';

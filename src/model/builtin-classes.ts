/**
 * What each of agy's built-in tools can do, by class: the 60 tools agy 1.3.1 lists in `init.tools`
 * (docs/reference/stream-json.md#built-in-tools) and the ones earlier builds listed. agy publishes no
 * description of its tools, so a class is read from the tool's name and, where a capture shows a call, its
 * arguments; a tool whose effect is unclear gets the more dangerous class.
 */

/**
 * A built-in tool's class:
 * - `read-only`: changes nothing, on the machine, on the web or in what the agent does later;
 * - `write`: changes files or what agy stores;
 * - `command`: runs code or another server's tool, whose effect the SDK cannot know;
 * - `network`: acts on the web through agy's browser (clicks, input, scripts, pages opened);
 * - `agent-control`: starts or shapes other agents, or changes what the agent will do later (tasks,
 *   schedules, workflows, messages).
 */
export type BuiltinToolClass = 'read-only' | 'write' | 'command' | 'network' | 'agent-control';

const READ_ONLY = [
  // Files and directories.
  'view_file',
  // Four read tools the SDK knew before any capture (its read-only and workspace lists); no capture lists them.
  'view_file_outline',
  'view_code_item',
  'view_content_chunk',
  'codebase_search',
  'list_dir',
  'find_by_name',
  'grep_search',
  // 1.1.8 only.
  'code_search',
  'skill_search',
  'moma_search',
  // The web, read: a fetch and two searches.
  'read_url_content',
  'search_web',
  'search_marketplace',
  // agy's own state, read: permissions, plugin accounts, MCP resources, a background command's output.
  'list_permissions',
  'list_plugin_accounts',
  'list_resources',
  'read_resource',
  'command_status',
  // The user is asked; the answer changes nothing by itself.
  'ask_question',
  'ask_permission',
  'ask_custom_permission',
  'wait',
  'wait_5_seconds',
  'finish',
] as const;

const WRITE = [
  'write_to_file',
  'replace_file_content',
  'multi_replace_file_content',
  // Edits a file in place with a sed expression (`sed -i`): a write, whatever the expression says.
  'sed_file',
  'notebook_edit',
  // Writes the image it makes to a file.
  'generate_image',
  // Deletes an item of agy's stored knowledge.
  'delete_knowledge',
] as const;

const COMMAND = [
  'run_command',
  // Types into a running command: as much as running it.
  'send_command_input',
  // Runs a notebook's cells.
  'notebook_execution',
  // Carries the agent's own and MCP tools (policies see the MCP tool itself, `server/tool`).
  'call_mcp_tool',
] as const;

const NETWORK = [
  'open_browser_url',
  'read_browser_page',
  'list_browser_pages',
  'browser_get_dom',
  'browser_get_network_request',
  'browser_list_network_requests',
  'capture_browser_console_logs',
  'capture_browser_screenshot',
  'browser_click_element',
  'browser_drag_pixel_to_pixel',
  'browser_input',
  'browser_mouse_down',
  'browser_mouse_up',
  'browser_move_mouse',
  'browser_press_key',
  'browser_refresh_page',
  'browser_resize_window',
  'browser_scroll',
  'browser_scroll_dom',
  'browser_select_option',
  'click_browser_pixel',
  'execute_browser_javascript',
] as const;

const AGENT_CONTROL = [
  // Subagents: started, defined (a new agent with its own instructions and tools), managed.
  'invoke_subagent',
  'define_subagent',
  'manage_subagents',
  'browser_subagent',
  // Background tasks, schedules and workflows: work that runs later, outside the turn that asked for it.
  'manage_task',
  'schedule',
  'run_workflow',
  // Messages to and from other agents.
  'manage_inbox',
  'send_message',
] as const;

/**
 * Each built-in tool agy has listed in `init.tools` (1.1.8–1.3.1), and four older read tools, with its
 * {@link BuiltinToolClass}.
 */
export const BUILTIN_TOOL_CLASSES: Readonly<Record<string, BuiltinToolClass>> = Object.freeze(
  Object.fromEntries([
    ...READ_ONLY.map((n) => [n, 'read-only'] as const),
    ...WRITE.map((n) => [n, 'write'] as const),
    ...COMMAND.map((n) => [n, 'command'] as const),
    ...NETWORK.map((n) => [n, 'network'] as const),
    ...AGENT_CONTROL.map((n) => [n, 'agent-control'] as const),
  ]),
);

/** The class of agy's built-in tool `name`, or `undefined` for a name agy has not listed. */
export function builtinToolClass(name: string): BuiltinToolClass | undefined {
  return Object.hasOwn(BUILTIN_TOOL_CLASSES, name) ? BUILTIN_TOOL_CLASSES[name] : undefined;
}

/**
 * The Python SDK's `BuiltinTools`, `CapabilitiesConfig` and `ThinkingLevel`, with agy's tool names. Every name
 * here is also matched under its Gemini CLI alias (the one alias table, `tool-aliases.ts`), in `capabilities`
 * and in policies alike.
 */
import { BUILTIN_TOOL_CLASSES } from './builtin-classes.js';
import { ACP_TOOL_KINDS, builtinToolAliases, GEMINI_CLI_TOOL_NAMES } from './tool-aliases.js';

/** The Python SDK's `ThinkingLevel` names (`AgentConfig.effort`). */
export type ThinkingLevel = 'minimal' | 'low' | 'medium' | 'high';

/** The thinking levels, in order. */
export const THINKING_LEVELS: readonly ThinkingLevel[] = ['minimal', 'low', 'medium', 'high'];

/** agy's level for a `ThinkingLevel`: agy takes low, medium and high; `minimal` runs as `low`, its nearest. */
export function agyEffort(level: ThinkingLevel): 'low' | 'medium' | 'high' {
  return level === 'minimal' ? 'low' : level;
}

const NAMES = {
  /** List a directory (agy `list_dir`; Gemini CLI `list_directory`). */
  LIST_DIR: 'list_dir',
  /** Search file contents (agy `grep_search`; Gemini CLI `grep_search`). */
  SEARCH_DIR: 'grep_search',
  /** Find files by name (agy `find_by_name`; Gemini CLI `glob`). */
  FIND_FILE: 'find_by_name',
  /** Read a file (agy `view_file`; Gemini CLI `read_file`). */
  VIEW_FILE: 'view_file',
  /** Create or overwrite a file (agy `write_to_file`; Gemini CLI `write_file`). */
  CREATE_FILE: 'write_to_file',
  /**
   * Edit a file (agy `replace_file_content`, also `multi_replace_file_content` and `sed_file`; Gemini CLI
   * `replace`).
   */
  EDIT_FILE: 'replace_file_content',
  /** Edit a file with sed-style substitutions (agy `sed_file`, 1.1.8+): a write, one of {@link EDIT_FILE}'s names. */
  SED_FILE: 'sed_file',
  /** Run a shell command (agy `run_command`; Gemini CLI `run_shell_command`). */
  RUN_COMMAND: 'run_command',
  /** Ask the user a question (agy `ask_question`). */
  ASK_QUESTION: 'ask_question',
  /** Search the web (agy `search_web`). */
  SEARCH_WEB: 'search_web',
  /** Read a web page (agy `read_url_content`). */
  READ_URL_CONTENT: 'read_url_content',
  /** Start a subagent (agy `invoke_subagent`). */
  START_SUBAGENT: 'invoke_subagent',
  /** Generate an image (agy `generate_image`). */
  GENERATE_IMAGE: 'generate_image',
  /** End the turn with an answer (agy `finish`). */
  FINISH: 'finish',
  /** Define a new subagent, with its own instructions and tools (agy `define_subagent`). */
  DEFINE_SUBAGENT: 'define_subagent',
  /** Manage background tasks, which run on after the turn (agy `manage_task`). */
  MANAGE_TASK: 'manage_task',
  /** Schedule work for later (agy `schedule`; the Python SDK's built-in `schedule` tool). */
  SCHEDULE: 'schedule',
  /** Run a workflow (agy `run_workflow`, 1.2.17+). */
  RUN_WORKFLOW: 'run_workflow',
} as const;

/** One of the built-in tool names of {@link BuiltinTools}. */
export type BuiltinToolName = (typeof NAMES)[keyof typeof NAMES];

/**
 * The built-in tools, by the Python SDK's names, valued with agy's tool names; usable in `capabilities` and in
 * policies (`policy.deny(BuiltinTools.RUN_COMMAND)`), where Gemini CLI's name of the same tool matches too.
 */
export const BuiltinTools = Object.freeze({
  ...NAMES,
  /** The tools that only read: list, search, find, view, read a URL, finish (Python `read_only()`). */
  readOnly(): BuiltinToolName[] {
    return [
      NAMES.LIST_DIR,
      NAMES.SEARCH_DIR,
      NAMES.FIND_FILE,
      NAMES.VIEW_FILE,
      NAMES.READ_URL_CONTENT,
      NAMES.FINISH,
    ];
  },
  /** The tools that cannot delete anything: every one but `run_command` (Python `nondestructive()`). */
  nondestructive(): BuiltinToolName[] {
    return Object.values(NAMES).filter((name) => name !== NAMES.RUN_COMMAND);
  },
  /** Every built-in tool named here (Python `all_tools()`). */
  allTools(): BuiltinToolName[] {
    return Object.values(NAMES);
  },
  /** No tool (Python `none()`): `capabilities: { enabledTools: BuiltinTools.none() }` turns them all off. */
  none(): BuiltinToolName[] {
    return [];
  },
  /** The tools that read or write one file: view, create, edit (as in the Python SDK). */
  fileTools(): BuiltinToolName[] {
    return [NAMES.VIEW_FILE, NAMES.CREATE_FILE, NAMES.EDIT_FILE];
  },
});

/**
 * Which built-in tools the model may use (Python `CapabilitiesConfig`). `enabledTools` and `disabledTools`
 * are mutually exclusive. Names are agy's ({@link BuiltinTools}) or Gemini CLI's. Per backend: docs/backends.md.
 */
export interface CapabilitiesConfig {
  /** Only these built-in tools (an allowlist); the agent's own tools and MCP tools are not affected. */
  enabledTools?: readonly string[] | undefined;
  /** Every built-in tool but these (a denylist). */
  disabledTools?: readonly string[] | undefined;
  /** `false` disables agy's subagent tools (`invoke_subagent`, `define_subagent`, `manage_subagents`). Default true. */
  enableSubagents?: boolean | undefined;
  /** Python's compaction threshold: no backend offers a matching setting, so setting it is refused. */
  compactionThreshold?: number | undefined;
  /**
   * Python's `AgentBehavior`. `autonomous` (the default) is how both backends run: headless, the agent finishes
   * on its own. `interactive` and `minimal` (a pruned system prompt for small models) are refused: no backend
   * has a setting for them (docs/backends.md).
   */
  agentBehavior?: AgentBehavior | undefined;
}

/** How the agent works (Python's `AgentBehavior`); see {@link CapabilitiesConfig.agentBehavior}. */
export type AgentBehavior = 'autonomous' | 'interactive' | 'minimal';

/** agy's subagent tools (agy 1.3.1 `init.tools`). */
export const AGY_SUBAGENT_TOOLS: readonly string[] = [
  'invoke_subagent',
  'define_subagent',
  'manage_subagents',
];

/**
 * Built-in tool names the SDK knows: every tool agy has listed in `init.tools` (1.1.8–1.3.1) and four older read
 * tools, each with its class in `builtin-classes.ts`, and Gemini CLI 0.61's (docs/reference/acp.md#tool-names).
 */
export const KNOWN_BUILTIN_TOOLS: readonly string[] = [
  ...new Set([
    ...Object.keys(BUILTIN_TOOL_CLASSES),
    ...Object.values(GEMINI_CLI_TOOL_NAMES),
    'read_many_files',
    'save_memory',
    'write_todos',
  ]),
];

const GEMINI_VALUES = new Set(Object.values(GEMINI_CLI_TOOL_NAMES));
/** Gemini CLI 0.61's names with no agy counterpart in the alias table. */
const GEMINI_CLI_EXTRA = new Set(['read_many_files', 'save_memory', 'write_todos']);

/** The names in `names` that are agy's (Gemini CLI-only names dropped). */
export function agyToolNames(names: readonly string[]): string[] {
  return names.filter(
    (n) => !GEMINI_CLI_EXTRA.has(n) && (!GEMINI_VALUES.has(n) || Object.hasOwn(GEMINI_CLI_TOOL_NAMES, n)),
  );
}

/** The names in `names` that are Gemini CLI's (agy-only names dropped). */
export function geminiToolNames(names: readonly string[]): string[] {
  return names.filter((n) => GEMINI_VALUES.has(n) || GEMINI_CLI_EXTRA.has(n));
}

/** Every name `name` goes by, closed over the alias table (`replace_file_content` → `replace` → `multi_…`). */
export function toolFamily(name: string): string[] {
  const out = new Set<string>([name]);
  const todo = [name];
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    for (const alias of builtinToolAliases(next)) {
      if (out.has(alias)) continue;
      out.add(alias);
      // An ACP kind (`edit`) is shared by several tools: the family goes on through names only.
      if (!ACP_TOOL_KINDS.has(alias)) todo.push(alias);
    }
  }
  return [...out];
}

/**
 * Whether `capabilities` leaves a built-in tool on that is not read-only (Python's safety guard, `agent.py`):
 * the allowlist's names, or every `BuiltinTools` tool outside the denylist, less `BuiltinTools.readOnly()`.
 * Names are compared by family, so Gemini CLI's `read_file` counts as `view_file`.
 */
export function enablesBuiltinWriteTools(caps: CapabilitiesConfig | undefined): boolean {
  const readOnly = new Set(BuiltinTools.readOnly().flatMap(toolFamily));
  if (caps?.enabledTools) return caps.enabledTools.some((name) => !readOnly.has(name));
  const disabled = new Set((caps?.disabledTools ?? []).flatMap(toolFamily));
  return BuiltinTools.allTools().some((name) => !readOnly.has(name) && !disabled.has(name));
}

/**
 * The built-in tools `capabilities` disables, every name of each (agy's and Gemini CLI's): the denylist, or
 * everything known outside the allowlist, plus agy's subagent tools with `enableSubagents: false`.
 */
export function disabledBuiltinTools(caps: CapabilitiesConfig): string[] {
  const out = new Set<string>();
  if (caps.disabledTools) for (const name of caps.disabledTools) for (const n of toolFamily(name)) out.add(n);
  if (caps.enabledTools) {
    const enabled = new Set(caps.enabledTools.flatMap(toolFamily));
    // `finish` ends every turn; `call_mcp_tool` carries the agent's own and MCP tools, which are not built-ins.
    enabled.add('finish');
    enabled.add('call_mcp_tool');
    for (const name of KNOWN_BUILTIN_TOOLS) if (!enabled.has(name)) out.add(name);
  }
  if (caps.enableSubagents === false) for (const name of AGY_SUBAGENT_TOOLS) out.add(name);
  return [...out].sort();
}

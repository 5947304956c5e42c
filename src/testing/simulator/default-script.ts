/**
 * The built-in script, used without a scenario (and after a scenario's turns run out, with `afterTurns: echo`):
 * an optional `list_dir` of the first workspace, then an echo of the prompt. It gives the offline demo something
 * real to show, and its usage is a pure function of lengths so tests can predict it.
 *
 * When the agent has its own tools (the SDK's MCP server `agy-sdk_tools` is connected and lists some), the turn
 * calls one of them instead of `list_dir`, through `call_mcp_tool` as agy calls every MCP tool
 * (docs/reference/mcp.md#calling-mcp-tools), so hooks and the SDK's gate apply; the echo then reports the tool's
 * answer. The tool is the first whose name shares a word with the prompt, else the first whose description
 * does, else the first listed; its arguments are generated from its input schema ({@link valueFromSchema}).
 *
 * A few prompts make it show what agy loaded instead (handy end-to-end checks for the SDK):
 * - `what are your rules?` is answered with the always-on rule bodies, joined by a blank line;
 * - `what agents?` lists the custom agents' names;
 * - `mcp:<server>/<tool> {json args}` (with MCP servers configured) calls that tool through `call_mcp_tool`
 *   before the echo, and the reply reports its output or error.
 *
 * When the prompt names attached files (the SDK's `[Attached <kind> (<type>) at <path>…]` blocks), the turn
 * reads each with `view_file` before anything else of its own, as agy's model is asked to: the read goes
 * through the hooks like any tool call, so the SDK's policies and workspace confinement decide, and an
 * allowed read opens the real file.
 *
 * When a hook injects a user message, the echo reply ends with ` A hook added: "<message>".` for each.
 */
import { readdirSync } from 'node:fs';
import { dynamicText, type TurnContext } from './actions.js';
import { valueFromSchema } from './json-schema.js';
import type { ListedTool } from './mcp-hub.js';
import type { SimRuntime } from './runtime.js';
import type { ScenarioAction, ScenarioTurn, TextAction } from './scenario.js';
import { viewFileAction } from './view-file.js';

/** How many entries the `list_dir` output shows at most. */
const MAX_ENTRIES = 20;
/** How much of the prompt the echo repeats, in characters (code points). */
const ECHO_CHARS = 200;
/**
 * The server agy knows the SDK's own tools by: the SDK's plugin `agy-sdk`, server `tools` (its `OWN_TOOL_SERVER`;
 * `test/testing/simulator/default-script.process.test.ts` keeps the two equal).
 */
export const OWN_TOOL_SERVER = 'agy-sdk_tools';
/** Prompt words shorter than this never pick a tool (`the`, `for`, `is` match too much). */
const MIN_MATCH_CHARS = 4;

/** The reply text the default script gives to `prompt`. */
export function echoText(prompt: string): string {
  const head = Array.from(prompt).slice(0, ECHO_CHARS).join('');
  return `Hello from the agy simulator (offline). You said: "${head}".`;
}

/** The default script's answer to `what are your rules?`. */
export function rulesText(runtime: SimRuntime): string {
  const bodies = runtime.config.rules.filter((rule) => rule.trigger === 'always_on').map((rule) => rule.body);
  return bodies.length === 0 ? 'I have no always-on rules.' : bodies.join('\n\n');
}

/** The default script's answer to `what agents?`. */
export function agentsText(runtime: SimRuntime): string {
  const names = runtime.config.agents.map((agent) => agent.name);
  return names.length === 0 ? 'I have no custom agents.' : `Custom agents: ${names.join(', ')}.`;
}

/**
 * Builds the default turn for a prompt.
 *
 * @param workspace the first usable `--add-dir`, if any: its real entries are listed.
 */
export function defaultTurn(
  prompt: string,
  workspace: string | undefined,
  runtime: SimRuntime,
): ScenarioTurn {
  const actions: ScenarioAction[] = [];
  const question = prompt.trim().toLowerCase();
  const explicit = runtime.config.mcpServers.length > 0 ? mcpCallIn(prompt) : undefined;
  // The agent's own tool replaces the `list_dir`; a prompt naming an MCP tool (`mcp:…`) keeps the old script.
  const own = explicit === undefined && !isQuestion(question) ? ownToolCall(prompt, runtime) : undefined;
  if (workspace !== undefined && own === undefined) actions.push(listDirAction(workspace));
  for (const path of attachedPaths(prompt)) actions.push(viewFileAction(path));
  if (question.includes('what are your rules?')) {
    actions.push({ text: rulesText(runtime), chunks: 3 });
    return { actions };
  }
  if (question.includes('what agents?')) {
    actions.push({ text: agentsText(runtime), chunks: 3 });
    return { actions };
  }
  const call = explicit ?? own;
  if (call !== undefined)
    actions.push({ mcpTool: { server: call.server, tool: call.tool, arguments: call.arguments } });
  const reply: TextAction = { text: echoText(prompt), chunks: 3 };
  dynamicText.set(reply, (ctx) => replyText(ctx, reply.text, call));
  actions.push(reply);
  return { actions };
}

/**
 * The files the prompt's attachment blocks name (`content/materialize.ts` writes them:
 * `[Attached image (image/png) at /dir/1-x.png — description. Read it with view_file.]`), in order.
 */
export function attachedPaths(prompt: string): string[] {
  const found: string[] = [];
  for (const match of prompt.matchAll(ATTACHED)) if (match[1] !== undefined) found.push(match[1]);
  return found;
}

/**
 * An attachment block. The path ends in the file name the SDK gives (`<n>-<name>`, only `[A-Za-z0-9._-]`), so
 * a directory with spaces or ` — ` in it is kept whole; after it comes ` — <description>` or the closing words.
 */
const ATTACHED =
  /\[Attached [a-z]+ \([^)]+\) at (.+?\/\d+-[A-Za-z0-9._-]+?)(?: — [\s\S]*?)?\. Read it with view_file\.\]/g;

/** The prompts the default script answers from what agy loaded, without a tool call of the agent's. */
function isQuestion(question: string): boolean {
  return question.includes('what are your rules?') || question.includes('what agents?');
}

/**
 * The call of one of the agent's own tools for `prompt`, or `undefined` when the SDK's tool server lists none.
 * Which tool: the first whose name has a word of the prompt (`get_weather` for "the weather in Lisbon"), else
 * the first whose description has one, else the first listed.
 */
export function ownToolCall(prompt: string, runtime: SimRuntime): McpCall | undefined {
  const tools = runtime.mcp?.listedTools(OWN_TOOL_SERVER) ?? [];
  const first = tools[0];
  if (first === undefined) return undefined;
  const words = new Set(wordsOf(prompt).filter((word) => word.length >= MIN_MATCH_CHARS));
  const shares = (text: string | undefined): boolean => wordsOf(text ?? '').some((word) => words.has(word));
  const tool =
    tools.find((t) => shares(t.name)) ?? tools.find((t) => shares(t.description)) ?? (first as ListedTool);
  const args = valueFromSchema(tool.inputSchema);
  return {
    server: OWN_TOOL_SERVER,
    tool: tool.name,
    arguments:
      typeof args === 'object' && args !== null && !Array.isArray(args)
        ? (args as Record<string, unknown>)
        : {},
    own: true,
  };
}

/** Lower-case words: `get_weather` → get, weather; `getWeather` → get, weather. */
function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

/** The echo, plus the MCP call's outcome and what hooks injected. */
function replyText(ctx: TurnContext, echo: string, call: McpCall | undefined): string {
  let text = echo;
  if (call !== undefined) {
    const outcome = ctx.lastTool;
    const what = call.own ? `Your tool ${call.tool}` : `The MCP tool ${call.server}/${call.tool}`;
    if (outcome !== undefined && 'error' in outcome) text += ` ${what} failed: ${outcome.error.message}`;
    else text += ` ${what} returned: ${outcome === undefined ? '' : formatOutput(outcome.output)}`;
  }
  for (const message of ctx.injected) text += ` A hook added: "${message}".`;
  return text;
}

function formatOutput(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output ?? '');
}

interface McpCall {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** One of the agent's own tools, picked by the script (not named in the prompt). */
  own?: true;
}

/**
 * Finds `mcp:<server>/<tool>` in a prompt, with optional JSON object arguments after it. Arguments that do not
 * parse as a JSON object make it no call at all (the prompt is just echoed).
 */
export function mcpCallIn(prompt: string): McpCall | undefined {
  const match = /mcp:([A-Za-z0-9_-]+)\/([A-Za-z0-9_.-]+)/.exec(prompt);
  if (match === null) return undefined;
  const rest = prompt.slice(match.index + match[0].length).trimStart();
  const call = { server: match[1] as string, tool: match[2] as string, arguments: {} };
  if (!rest.startsWith('{')) return call;
  // The longest prefix of the rest that parses as a JSON object.
  for (let end = rest.lastIndexOf('}'); end > 0; end = rest.lastIndexOf('}', end - 1)) {
    try {
      const value: unknown = JSON.parse(rest.slice(0, end + 1));
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        return { ...call, arguments: value as Record<string, unknown> };
      }
      return undefined;
    } catch {
      // Try a shorter prefix.
    }
  }
  return undefined;
}

function listDirAction(dir: string): ScenarioAction {
  const parameters = { DirectoryPath: dir };
  try {
    const names = readdirSync(dir).sort().slice(0, MAX_ENTRIES);
    return { tool: { name: 'list_dir', parameters, output: names.join('\n') } };
  } catch (err) {
    return {
      tool: { name: 'list_dir', parameters, error: { type: 'TOOL_ERROR', message: (err as Error).message } },
    };
  }
}

/**
 * The built-in script, used without a scenario (and after a scenario's turns run out, with `afterTurns: echo`):
 * an optional `list_dir` of the first workspace, then an echo of the prompt. It gives the offline demo something
 * real to show, and its usage is a pure function of lengths so tests can predict it.
 *
 * A few prompts make it show what agy loaded instead (handy end-to-end checks for the SDK):
 * - `what are your rules?` is answered with the always-on rule bodies, joined by a blank line;
 * - `what agents?` lists the custom agents' names;
 * - `mcp:<server>/<tool> {json args}` (with MCP servers configured) calls that tool through `call_mcp_tool`
 *   before the echo, and the reply reports its output or error.
 *
 * When a hook injects a user message, the echo reply ends with ` A hook added: "<message>".` for each.
 */
import { readdirSync } from 'node:fs';
import { dynamicText, type TurnContext } from './actions.js';
import type { SimRuntime } from './runtime.js';
import type { ScenarioAction, ScenarioTurn, TextAction } from './scenario.js';

/** How many entries the `list_dir` output shows at most. */
const MAX_ENTRIES = 20;
/** How much of the prompt the echo repeats, in characters (code points). */
const ECHO_CHARS = 200;

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
  if (workspace !== undefined) actions.push(listDirAction(workspace));
  const question = prompt.trim().toLowerCase();
  if (question.includes('what are your rules?')) {
    actions.push({ text: rulesText(runtime), chunks: 3 });
    return { actions };
  }
  if (question.includes('what agents?')) {
    actions.push({ text: agentsText(runtime), chunks: 3 });
    return { actions };
  }
  const call = runtime.config.mcpServers.length > 0 ? mcpCallIn(prompt) : undefined;
  if (call !== undefined) actions.push({ mcpTool: call });
  const reply: TextAction = { text: echoText(prompt), chunks: 3 };
  dynamicText.set(reply, (ctx) => replyText(ctx, reply.text, call));
  actions.push(reply);
  return { actions };
}

/** The echo, plus the MCP call's outcome and what hooks injected. */
function replyText(ctx: TurnContext, echo: string, call: McpCall | undefined): string {
  let text = echo;
  if (call !== undefined) {
    const outcome = ctx.lastTool;
    const what = `MCP tool ${call.server}/${call.tool}`;
    if (outcome !== undefined && 'error' in outcome) text += ` The ${what} failed: ${outcome.error.message}`;
    else text += ` The ${what} returned: ${outcome === undefined ? '' : formatOutput(outcome.output)}`;
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

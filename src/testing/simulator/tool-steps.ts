/**
 * Tool steps with hooks around them: a built-in tool (`tool` action) and `call_mcp_tool` (`mcpTool` action).
 *
 * A step goes ACTIVE with the model's arguments; the PreToolUse hooks matching the tool name then decide:
 * - denied: the step ends ERROR, `tool_info.error` `{type: "TOOL_ERROR", message: "tool call denied by
 *   pre-tool hook: <R>"}`, no output; the turn goes on (1.1.x: the turn ends ERROR with that text);
 * - `ask`/`force_ask` ("normal policy"; on 1.3.3 also `allow`, `permissionOverrides` and empty stdout,
 *   docs/reference/hooks.md#pretooluse-answers-on-133): runs in `always-proceed` mode; otherwise it is soft-denied the way
 *   the imitated build soft-denies (`deny` action: DONE without output on 1.2.17+, ERROR `TOOL_ERROR` on
 *   1.2.7 — no real agy writes `PERMISSION_DENIED`), the tool's name joins `result.denied_actions` and the
 *   turn ends;
 * - allowed: the tool runs with the `overwrite`-merged arguments, which the DONE/ERROR update shows; then the
 *   PostToolUse hooks see its result.
 * The final update carries `duration_seconds` (the tool's run time), as every captured one does.
 */
import { performance } from 'node:perf_hooks';
import { throwIfAborted, untilAborted } from './abort.js';
import { roundSeconds } from './envelopes.js';
import { postToolUse, preToolUse } from './hook-events.js';
import type { ToolOutcome } from './mcp-hub.js';
import type { McpToolAction, ToolAction } from './scenario.js';
import { nextIndex, step, type TurnContext } from './turn-context.js';
import { liveTools } from './view-file.js';

/** The built-in tool agy calls MCP tools through (docs/reference/mcp.md#calling-mcp-tools). */
export const CALL_MCP_TOOL = 'call_mcp_tool';

/** A scenario expectation that did not hold (`mcpTool.expectError`): the turn ends with a result ERROR. */
export class ExpectationFailed extends Error {}

/**
 * `run_command` → `RunCommand`: agy's `denied_actions[].display_name` is the tool name in PascalCase
 * (agy-real/joiomi-playbook-plugin-agy-1.3.1/denied-command.stdout, …/denied_actions-2026-09-20-run1.ndjson).
 */
export function displayName(toolName: string): string {
  return toolName
    .split(/[_-]+/)
    .filter((word) => word !== '')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/**
 * One tool step: ACTIVE, the PreToolUse verdict, the tool itself (`execute`, given the final arguments), the
 * DONE/ERROR update, then the PostToolUse hooks. Returns the outcome (a denial is an error outcome).
 */
export async function toolStep(
  ctx: TurnContext,
  name: string,
  parameters: Record<string, unknown>,
  execute: (args: Record<string, unknown>) => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const index = nextIndex(ctx);
  const started = performance.now();
  const base = { step_type: 'tool', tool_name: name };
  await step(ctx, index, { state: 'ACTIVE', ...base, tool_info: { name, parameters } });
  throwIfAborted(ctx.signal);
  const gate = await preToolUse(ctx, name, parameters, index);
  if (gate.verdict === 'ask' && !ctx.runtime.asksProceed) {
    await denyStep(ctx, index, name, gate.args, started, { permission: name });
    ctx.lastTool = { error: { type: 'TOOL_ERROR', message: `user denied permission for ${name}` } };
    return ctx.lastTool;
  }
  if (gate.verdict === 'deny') {
    // agy's own form (agy-real/littlebearapps-untether-agy-1.3.1/hook_deny_bypass.script, step 11); 1.1.x then
    // ends the turn ERROR with the same text (docs/reference/hooks.md#hook-denials-on-stdout).
    const denial = { type: 'TOOL_ERROR', message: `tool call denied by pre-tool hook: ${gate.reason}` };
    await step(ctx, index, {
      state: 'ERROR',
      ...base,
      duration_seconds: roundSeconds((performance.now() - started) / 1000),
      tool_info: { name, parameters: gate.args, error: denial },
    });
    ctx.lastTool = { error: denial };
    if (ctx.profile.hookDenialResult === 'error') throw new ExpectationFailed(denial.message);
    return ctx.lastTool;
  }
  const args = gate.args;
  let outcome: ToolOutcome;
  try {
    outcome = await execute(args);
  } catch (err) {
    // An MCP call cut off by SIGINT or the print timeout rejects with the SDK's abort error: end the turn.
    throwIfAborted(ctx.signal);
    throw err;
  }
  throwIfAborted(ctx.signal);
  const info: Record<string, unknown> = { name, parameters: args };
  const duration_seconds = roundSeconds((performance.now() - started) / 1000);
  if ('error' in outcome) {
    info.error = outcome.error;
    await step(ctx, index, { state: 'ERROR', ...base, duration_seconds, tool_info: info });
  } else {
    if (outcome.output !== undefined) info.output = outcome.output;
    await step(ctx, index, { state: 'DONE', ...base, duration_seconds, tool_info: info });
  }
  ctx.lastTool = outcome;
  await postToolUse(ctx, name, args, index, outcome);
  return outcome;
}

/** A scripted built-in tool call (or one that runs for real: {@link liveTools}). */
export async function runTool(ctx: TurnContext, action: ToolAction): Promise<void> {
  const { name, parameters = {}, output, error, hang } = action.tool;
  const live = liveTools.get(action);
  if (live !== undefined) {
    await toolStep(ctx, name, parameters, live);
    return;
  }
  await toolStep(ctx, name, parameters, async () => {
    // A hung tool never finishes: only an interrupt (or the print timeout) ends the turn, and no DONE follows.
    if (hang) await untilAborted(ctx.signal);
    if (error !== undefined) {
      return { error: { type: error.type ?? 'TOOL_ERROR', message: error.message ?? 'tool failed' } };
    }
    return output === undefined ? {} : { output };
  });
}

/**
 * A `call_mcp_tool` step: parameters `{ServerName, ToolName, Arguments}`, `ServerName` being the server's full
 * name (`<plugin>_<server>` for a plugin's) when the scenario's `server` resolves.
 *
 * @throws ExpectationFailed when `expectError` does not match the outcome.
 */
export async function runMcpTool(ctx: TurnContext, action: McpToolAction): Promise<void> {
  const { server, tool, arguments: args = {}, expectError } = action.mcpTool;
  const hub = ctx.runtime.mcp;
  const serverName = hub?.resolve(server)?.name ?? server;
  const parameters = { ServerName: serverName, ToolName: tool, Arguments: args };
  const outcome = await toolStep(ctx, CALL_MCP_TOOL, parameters, async (final) => {
    const finalArgs = final.Arguments;
    const callArgs =
      typeof finalArgs === 'object' && finalArgs !== null && !Array.isArray(finalArgs)
        ? (finalArgs as Record<string, unknown>)
        : {};
    if (hub === undefined)
      return { error: { type: 'TOOL_ERROR', message: `MCP server "${server}" not found` } };
    return hub.call(String(final.ServerName), String(final.ToolName), callArgs, ctx.signal);
  });
  if (expectError === undefined) return;
  const failed = 'error' in outcome;
  const what = `call_mcp_tool ${serverName}/${tool}`;
  if (expectError === false && failed) {
    throw new ExpectationFailed(
      `simulator: expected ${what} to succeed, it failed: ${outcome.error.message}`,
    );
  }
  if (expectError !== false && !failed)
    throw new ExpectationFailed(`simulator: expected ${what} to fail, it succeeded`);
  if (typeof expectError === 'string' && failed && !outcome.error.message.includes(expectError)) {
    throw new ExpectationFailed(
      `simulator: expected ${what} to fail with ${JSON.stringify(expectError)}, it failed with ${JSON.stringify(outcome.error.message)}`,
    );
  }
}

/** What a soft denial says: the permission, its `denied_actions` name, the 1.2.7 message's target, its form. */
export interface SoftDenial {
  permission: string;
  displayName?: string | undefined;
  target?: string | undefined;
  form?: 'done' | 'error' | undefined;
}

/**
 * Ends a tool step as a soft denial in the imitated build's form (1.2.17+: DONE without output; 1.2.7: ERROR
 * `TOOL_ERROR` "…user denied permission…") and records it in `denied_actions`, which ends the turn.
 */
export async function denyStep(
  ctx: TurnContext,
  index: number,
  name: string,
  parameters: Record<string, unknown>,
  started: number,
  denial: SoftDenial,
): Promise<void> {
  const base = { step_type: 'tool', tool_name: name };
  const duration_seconds = roundSeconds((performance.now() - started) / 1000);
  if ((denial.form ?? ctx.profile.denial) === 'done') {
    await step(ctx, index, { state: 'DONE', ...base, duration_seconds, tool_info: { name, parameters } });
  } else {
    const what = denial.target ?? firstString(parameters) ?? '';
    const message =
      `permission check failed for ${denial.permission} ${JSON.stringify(what)}: user denied permission for ` +
      `${denial.permission}(${what})\nDo not attempt to circumvent this denial by rephrasing the command, ` +
      'using alternative tools/scripts (e.g. python, sh, curl), or accessing the same target resource. ' +
      'Proceed without performing this action.';
    const error = { type: 'TOOL_ERROR', message };
    await step(ctx, index, {
      state: 'ERROR',
      ...base,
      duration_seconds,
      tool_info: { name, parameters, error },
    });
  }
  ctx.denied.push({ action: denial.permission, display_name: denial.displayName ?? displayName(name) });
}

function firstString(parameters: Record<string, unknown>): string | undefined {
  return Object.values(parameters).find((value): value is string => typeof value === 'string');
}

/**
 * `ToolRunner` (Python `ToolRunner.execute` / `process_tool_calls`): runs the agent's `tool()`s by name without
 * an agent or a model, through the same call path the session listener uses (argument validation, the handler
 * with a `ToolContext` and its state store, result conversion). An unknown tool or a failing handler gives an
 * error result (`isError: true`), never a throw.
 */

import { runToolCall, type ToolCallSession } from '../connection/tool-server/mcp-tool-call.js';
import { ToolCatalog } from '../connection/tool-server/mcp-tool-catalog.js';
import { consoleLogger, type Logger } from '../logger.js';
import type { ToolDefinition } from '../tools/tool.js';
import { StateStore, type ToolContextHost } from '../tools/tool-context.js';
import type { CallToolResult } from '../tools/tool-result.js';

/** One call for {@link ToolRunner.processToolCalls}. */
export interface ToolRunnerCall {
  /** The tool's name (as written in `tool({ name })`, or its provider-safe served name). */
  name: string;
  /** Its arguments (validated against the tool's input schema). */
  args?: Record<string, unknown> | undefined;
}

/** Options of a {@link ToolRunner}. */
export interface ToolRunnerOptions {
  /** What `ctx.conversationId`, `ctx.send()` and `ctx.isIdle` answer (default: none, `send` rejects). */
  host?: ToolContextHost | undefined;
  /** The state store the calls share (default: a fresh one, see {@link ToolRunner.state}). */
  state?: StateStore | undefined;
  /** Where the call path logs. Default: stderr. */
  logger?: Logger | undefined;
}

/** Runs `tool()` definitions by name, sequentially or concurrently. */
export class ToolRunner {
  readonly #catalog: ToolCatalog;
  /** What every call shares: the context host (no gate, no after hook, no observer), the state, the logger. */
  readonly #session: ToolCallSession;
  /** The state store every call's `ToolContext` reads and writes. */
  readonly state: StateStore;

  /** Throws `TypeError` for two tools with the same name. */
  constructor(tools: readonly ToolDefinition[], options: ToolRunnerOptions = {}) {
    this.#catalog = new ToolCatalog('tool-runner', tools);
    this.state = options.state ?? new StateStore();
    this.#session = {
      hooks: { host: { toolContext: options.host ?? {} } },
      state: this.state,
      logger: options.logger ?? consoleLogger,
    };
  }

  /** The tools' names as served (provider-safe), in definition order. */
  get toolNames(): string[] {
    return this.#catalog.toolNames();
  }

  /**
   * Runs one tool by name. Resolves with its MCP result; an unknown tool, invalid arguments, a throwing handler
   * or an output that does not match the tool's output schema give `isError: true` with a message. `signal`
   * becomes `ctx.signal`.
   */
  execute(name: string, args: Record<string, unknown> = {}, signal?: AbortSignal): Promise<CallToolResult> {
    return runToolCall(this.#catalog, { name, args }, this.#session, signal ?? new AbortController().signal);
  }

  /**
   * Runs a list of calls (Python `process_tool_calls`): concurrently by default, or one after another with
   * `{ concurrent: false }`. Results are in the calls' order.
   */
  async processToolCalls(
    calls: readonly ToolRunnerCall[],
    options: { concurrent?: boolean; signal?: AbortSignal } = {},
  ): Promise<CallToolResult[]> {
    if (options.concurrent === false) {
      const out: CallToolResult[] = [];
      for (const call of calls) out.push(await this.execute(call.name, call.args ?? {}, options.signal));
      return out;
    }
    return Promise.all(calls.map((call) => this.execute(call.name, call.args ?? {}, options.signal)));
  }
}

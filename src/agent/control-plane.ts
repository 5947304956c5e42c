/**
 * The control plane: typed hooks, policies, budgets and steering, mapped onto what agy offers.
 *
 * | SDK hook                      | Runs on                                                                  |
 * |-------------------------------|--------------------------------------------------------------------------|
 * | preToolCall (and policies)    | agy `PreToolUse` for built-in and user MCP tools; in-process, before the |
 * |                               | handler, for the agent's own `tool()`s. `modifiedArgs` → `overwrite`.     |
 * | postToolCall, onToolError     | agy `PostToolUse` for built-in tools (1.3.0 sends no output, and `error` |
 * |                               | is "" even for a failed command); in-process for own tools, where        |
 * |                               | onToolError's replacement message is what the model sees.                |
 * | preTurn                       | the SDK, before the message is written (a deny never reaches agy).       |
 * | postTurn                      | the turn's end, on the response text.                                    |
 * | stop                          | agy `Stop`; `continue` + reason → agy's `{"decision":"continue"}`.        |
 * | onSessionStart / onSessionEnd | the Agent's start() / close().                                           |
 * | onCompaction                  | a `compaction` step, if agy ever streams one (none is documented).       |
 * | onInteraction                 | not reachable: stream-json has no question channel (headless agy).       |
 *
 * Steering 'next-step' rides agy's `PreInvocation` hook (`injectSteps: [{userMessage}]`).
 *
 * Real agy payloads (agy-real/hooks-anti-samcheonpo-agy-1.3.0) carry no event name (the route says which
 * event a call is), no `stepIdx` on PreInvocation and Stop, and no tool output on PostToolUse (only `error`,
 * empty even for a command that failed). A call is charged to the turn running when it arrives; where a
 * `stepIdx` exists, a call whose step was seen before that turn began belongs to an ended turn instead.
 */

import {
  type AfterToolCall,
  agyInfo,
  type BeforeToolCall,
  bareOutput,
  errorText,
  type McpServerConfig,
  OWN_TOOL_SERVER,
  TOOL_SERVER_NAME,
  toHookCall,
} from '../connection/agy/index.js';
import { ToolCallGate } from '../conversation/budget.js';
import { ConfigError } from '../errors.js';
import { createHookToolCall } from '../hooks/args.js';
import type { Hook } from '../hooks/kinds.js';
import { HookRunner } from '../hooks/runner.js';
import type { HookToolResult, StopEvent } from '../hooks/types.js';
import { isRecord } from '../internal/guards.js';
import type { Logger } from '../logger.js';
import type { Step } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';
import { enforce } from '../policy/enforce.js';
import type { PolicyList } from '../policy/types.js';
import type {
  AgyHookInput,
  AgyHookRegistration,
  InvocationOutput,
  PreToolUseOutput,
  StopOutput,
} from '../protocol/hook-wire.js';
import { SteeringQueue } from './steering.js';
import { foldDenials, recordDenial, TurnLedger } from './turn-ledger.js';

export interface ControlPlaneOptions {
  hooks: readonly Hook[];
  /** undefined → the default policy `confirmRunCommand()`; [] → none. */
  policies: PolicyList;
  mcpServers: Record<string, McpServerConfig>;
  askUserTimeoutMs?: number | undefined;
  /** The agent has its own `tool()`s (served as MCP server `agy-sdk_tools`). */
  hasOwnTools: boolean;
  /** Install agy's PreInvocation hook for `'next-step'` steering. */
  steering: boolean;
  /** `budget.maxToolCalls`: calls past it are denied before they run (the turn then ends budget_exceeded). */
  maxToolCalls?: { limit: number; scope: 'turn' | 'conversation' } | undefined;
  logger: Logger;
}

export class ControlPlane {
  readonly runner: HookRunner;
  readonly #logger: Logger;
  readonly #mcpServers: Record<string, McpServerConfig>;
  /** Which turn each call belongs to, and the SDK's denials per turn. */
  readonly #ledger = new TurnLedger();
  /** Steering messages waiting for the next model call. */
  readonly steering = new SteeringQueue();
  readonly #hasOwnTools: boolean;
  readonly #steering: boolean;
  readonly #toolGate: ToolCallGate | undefined;

  constructor(o: ControlPlaneOptions) {
    this.#logger = o.logger;
    this.#mcpServers = o.mcpServers;
    this.#hasOwnTools = o.hasOwnTools;
    this.#steering = o.steering;
    this.#toolGate = o.maxToolCalls
      ? new ToolCallGate(o.maxToolCalls.limit, o.maxToolCalls.scope)
      : undefined;
    this.runner = new HookRunner({ hooks: o.hooks, logger: o.logger });
    if (o.policies.length > 0) {
      this.runner.register(
        enforce(o.policies, {
          mcpServers: Object.keys(o.mcpServers),
          askUserTimeoutMs: o.askUserTimeoutMs,
          logger: o.logger,
        }),
      );
    }
    if (this.runner.has('onInteraction')) {
      o.logger.warn(
        'onInteraction hooks never run with agy: stream-json has no question or confirmation channel',
      );
    }
  }

  /**
   * The Python SDK's guard: write-capable tools or MCP servers with no policy and no preToolCall hook is a
   * configuration error. Write-capable: `--dangerously-skip-permissions`, in-process tools, or MCP servers.
   */
  static guard(o: { policies: PolicyList; hooks: readonly Hook[]; writeCapable: boolean }): void {
    if (!o.writeCapable || o.policies.length > 0 || o.hooks.some((h) => h.kind === 'preToolCall')) return;
    throw new ConfigError(
      'policies',
      'write-capable tools or MCP servers are enabled with no policies and no preToolCall hook. ' +
        'Add policies (e.g. policies: [policy.allowAll()] or policy.confirmRunCommand()), or a hooks.preToolCall hook.',
    );
  }

  /** The agy hooks to install: only what the registered hooks and the config need. */
  agyHooks(): AgyHookRegistration[] {
    const regs: AgyHookRegistration[] = [];
    const needsPreTool =
      this.runner.has('preToolCall') ||
      this.#toolGate !== undefined ||
      Object.values(this.#mcpServers).some((s) => s.enabledTools !== undefined);
    if (needsPreTool) regs.push({ event: 'PreToolUse', handler: (i) => this.#preToolUse(i) });
    if (this.runner.has('postToolCall') || this.runner.has('onToolError')) {
      regs.push({ event: 'PostToolUse', handler: (i) => this.#postToolUse(i) });
    }
    if (this.runner.has('stop')) regs.push({ event: 'Stop', handler: (i) => this.#stop(i) });
    if (this.#steering) regs.push({ event: 'PreInvocation', handler: () => this.#preInvocation() });
    return regs;
  }

  /** Starts a turn: runs preTurn hooks on the prompt text. */
  async beginTurn(promptText: string): Promise<{ allow: boolean; message?: string }> {
    const ctx = this.runner.beginTurn();
    this.#ledger.begin(ctx);
    this.#toolGate?.beginTurn();
    const outcome = await this.runner.dispatchPreTurn(promptText, ctx);
    return outcome.allow
      ? { allow: true }
      : { allow: false, message: outcome.message ?? 'denied by a preTurn hook' };
  }

  /** Ends a turn: postTurn hooks, and SDK denials folded into the result (fail closed). */
  async endTurn(result: TurnResult): Promise<TurnResult> {
    const turn = this.#ledger.end();
    if (!turn) return result;
    await this.runner.dispatchPostTurn(turn.ctx, result.text);
    return foldDenials(result, turn.denials);
  }

  /** Session lifecycle. */
  async sessionStart(conversationId: string | undefined): Promise<void> {
    this.runner.setConversationId(conversationId);
    await this.runner.dispatchSessionStart();
  }

  async sessionEnd(): Promise<void> {
    await this.runner.dispatchSessionEnd();
  }

  /** Sees each step: dispatches compaction hooks. */
  onStep(step: Step): void {
    this.#ledger.noteStep(step.stepIndex);
    const turn = this.#ledger.current;
    if (step.type === 'compaction' && step.state === 'DONE' && turn) {
      void this.runner.dispatchCompaction(turn.ctx, { stepIndex: step.stepIndex, step });
    }
  }

  /**
   * Records every PreToolUse answer agy actually received that was not `allow` — from the policies, from raw
   * `agyHooks`, or the listener's fail-closed fallback (a hook that threw or timed out) — so the denial reaches
   * `result.deniedActions` and the turn cannot end `success`.
   */
  readonly onHookAnswer = (event: string, input: unknown, answer: unknown): void => {
    if (event !== 'PreToolUse') return;
    const hookInput = isRecord(input) ? (input as AgyHookInput) : {};
    // The turn the call belonged to, not whichever turn is current when a slow answer comes back. Input that
    // never reached a handler (too large, not JSON) is charged to the turn running now.
    const turn = this.#ledger.takeRequest(input, hookInput.stepIdx);
    if (!isRecord(answer) || answer.decision === 'allow') return;
    const { call } = toHookCall(hookInput);
    recordDenial(
      turn,
      call,
      typeof answer.reason === 'string' ? answer.reason : `agy hook answered ${String(answer.decision)}`,
    );
  };

  /** Notes which turn a hook call arrived in (called before any handler runs). */
  readonly onHookRequest = (event: string, input: unknown): void => {
    if (event !== 'PreToolUse' || !isRecord(input)) return;
    this.#ledger.noteRequest(input, (input as AgyHookInput).stepIdx);
  };

  /** The in-process gate for the agent's own tools (they bypass agy's PreToolUse, see #preToolUse). */
  readonly beforeToolCall: BeforeToolCall = async (call) => {
    const hookCall = createHookToolCall({
      id: `${TOOL_SERVER_NAME}:${String(call.requestId ?? Date.now())}`,
      name: call.originalName,
      args: call.parsedArgs,
    });
    const spent = this.#toolGate?.spend();
    if (spent) {
      recordDenial(this.#ledger.current, hookCall, spent);
      return { allow: false, message: spent };
    }
    if (!this.runner.has('preToolCall')) return { allow: true };
    const turn = this.#ledger.current;
    const ctx = turn?.ctx ?? this.runner.beginTurn();
    const outcome = await this.runner.dispatchPreToolCall(ctx, hookCall);
    turn?.operations.set(hookCall.id, { op: outcome.operation, call: outcome.call });
    if (!outcome.allow) {
      recordDenial(turn, hookCall, outcome.message);
      return { allow: false, message: outcome.message ?? 'denied' };
    }
    return outcome.modifiedArgs ? { allow: true, modifiedArgs: outcome.call.args } : { allow: true };
  };

  /** postToolCall / onToolError for the agent's own tools; onToolError's message replaces the error text. */
  readonly afterToolCall: AfterToolCall = async (record) => {
    if (!this.runner.has('postToolCall') && !this.runner.has('onToolError')) return undefined;
    const id = `${TOOL_SERVER_NAME}:${String(record.requestId)}`;
    const known = this.#ledger.current?.operations.get(id);
    const call =
      known?.call ??
      createHookToolCall({ id, name: record.originalName ?? record.name, args: record.parsedArgs ?? {} });
    const op = known?.op ?? (this.#ledger.current?.ctx ?? this.runner.beginTurn()).startOperation(id);
    if (record.result.isError) {
      const message = record.result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      const replacement = await this.runner.dispatchToolError(op, { call, error: { message } });
      if (replacement !== undefined) return { isError: true, content: [{ type: 'text', text: replacement }] };
      return undefined;
    }
    await this.runner.dispatchPostToolCall(op, {
      call,
      output: record.result.structuredContent ?? record.result.content,
    });
    return undefined;
  };

  async #preToolUse(input: AgyHookInput): Promise<PreToolUseOutput> {
    const { call, mcp } = toHookCall(input);
    // A late call from a turn that already ended: nothing to ask anyone about; deny it.
    if (this.#ledger.current && !this.#ledger.turnOf(input.stepIdx))
      return { decision: 'deny', reason: 'the turn that made this call has ended' };
    // The agent's own tools are gated in-process, before their handler; gating them here too would ask twice.
    // Matched on agy's exact server name, and only when the agent serves tools (a user server can't pose as it).
    if (mcp && this.#hasOwnTools && mcp.agyServer === OWN_TOOL_SERVER) return { decision: 'allow' };
    // Denials are recorded by onHookAnswer, from the answer agy actually receives.
    if (mcp && call.server !== undefined) {
      const enabled = this.#mcpServers[call.server]?.enabledTools;
      if (enabled && !enabled.includes(call.name)) {
        return {
          decision: 'deny',
          reason: `tool '${call.name}' is not in enabledTools of MCP server '${call.server}'`,
        };
      }
    }
    const spent = this.#toolGate?.spend();
    if (spent) return { decision: 'deny', reason: spent };
    if (!this.runner.has('preToolCall')) return { decision: 'allow' };
    const turn = this.#ledger.current;
    const outcome = await this.runner.dispatchPreToolCall(turn?.ctx ?? this.runner.beginTurn(), call);
    turn?.operations.set(call.id, { op: outcome.operation, call: outcome.call });
    if (!outcome.allow)
      return { decision: 'deny', reason: outcome.message ?? 'denied by a preToolCall hook' };
    if (!outcome.modifiedArgs) return { decision: 'allow' };
    // For MCP calls the model's arguments sit inside `Arguments`.
    const overwrite = mcp ? { Arguments: outcome.call.args } : outcome.modifiedArgs;
    return { decision: 'allow', overwrite };
  }

  async #postToolUse(input: AgyHookInput): Promise<void> {
    const { call } = toHookCall(input);
    if (this.#hasOwnTools && input.toolCall?.args?.ServerName === OWN_TOOL_SERVER) return; // see afterToolCall
    // PostToolUse has a stepIdx: a late one from an ended turn runs on a context of its own, never the next
    // turn's.
    const turn = this.#ledger.turnOf(input.stepIdx);
    const known = turn?.operations.get(call.id);
    const op = known?.op ?? (turn?.ctx ?? this.runner.beginTurn()).startOperation(call.id);
    const result = isRecord(input.toolResult) ? input.toolResult : undefined;
    const message = errorText(input.error) ?? errorText(result?.error);
    if (message !== undefined) {
      const replacement = await this.runner.dispatchToolError(op, {
        call: known?.call ?? call,
        error: { message },
      });
      if (replacement !== undefined) {
        this.#logger.info(
          `onToolError replacement for built-in tool '${call.name}' (agy ignores PostToolUse output): ${replacement}`,
        );
      }
      return;
    }
    const output = bareOutput(input);
    const event: HookToolResult = { call: known?.call ?? call };
    if (output !== undefined) event.output = output;
    await this.runner.dispatchPostToolCall(op, event);
  }

  async #stop(input: AgyHookInput): Promise<StopOutput> {
    // Stop carries no stepIdx: it belongs to the turn running as it arrives. With none (a late call from an
    // ended turn), there is nothing to keep going, so agy may stop and no stop hook runs.
    const turn = this.#ledger.current;
    if (!turn) return {};
    const ctx = turn.ctx;
    const errorMessage = errorText(input.error);
    const agy = agyInfo(input);
    const event: StopEvent = {
      ...(typeof input.responseText === 'string' && { responseText: input.responseText }),
      ...(typeof input.terminationReason === 'string' && { terminationReason: input.terminationReason }),
      ...(errorMessage !== undefined && { errorMessage }),
      ...(typeof input.executionNum === 'number' && { executionNum: input.executionNum }),
      ...(typeof input.fullyIdle === 'boolean' && { fullyIdle: input.fullyIdle }),
      ...(agy && { agy }),
      continuationCount: turn.continuations,
    };
    const outcome = await this.runner.dispatchStop(ctx, event);
    if (outcome.decision !== 'continue') return {};
    turn.continuations++;
    return { decision: 'continue', reason: outcome.reason };
  }

  #preInvocation(): InvocationOutput {
    // No stepIdx here either: a call arriving between turns belongs to an ended one, and steering queued
    // for the next turn must not be spent on it (it rides the next prompt instead).
    if (!this.#ledger.current) return {};
    const steers = this.steering.take();
    return steers.length > 0 ? { injectSteps: steers.map((userMessage) => ({ userMessage })) } : {};
  }
}

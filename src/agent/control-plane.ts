/**
 * The control plane: typed hooks, policies, budgets and steering, mapped onto what agy offers.
 *
 * | SDK hook                      | Runs on                                                                  |
 * |-------------------------------|--------------------------------------------------------------------------|
 * | preToolCall (and policies)    | agy `PreToolUse` for built-in and user MCP tools; in-process, before the |
 * |                               | handler, for the agent's own `tool()`s. `modifiedArgs` → `overwrite`.     |
 * | postToolCall, onToolError     | agy `PostToolUse` for built-in tools (1.3.0 sends no output, and `error` |
 * |                               | is "" even for a failed command); in-process for own tools, where        |
 * |                               | onToolError's replacement message is what the model sees. A failed call  |
 * |                               | runs onToolError, then postToolCall with `error` (what the model saw).   |
 * | preTurn                       | the SDK, before the message is written (a deny never reaches agy).       |
 * | postTurn                      | the turn's end, on the response text.                                    |
 * | stop                          | agy `Stop`; `continue` + reason → agy's `{"decision":"continue"}`.        |
 * | onSessionStart / onSessionEnd | the Agent's start() / close().                                           |
 * | onCompaction                  | a `compaction` step, if agy ever streams one (none is documented).       |
 * | onInteraction                 | not reachable: stream-json has no question channel (headless agy).       |
 *
 * Steering 'next-step' rides agy's `PreInvocation` hook (`injectSteps: [{userMessage}]`).
 *
 * The control plane is the backends' `ConnectionHost`, passed whole: every tool call, whoever runs it, meets
 * it at one gate (`gateToolCall`) and one end (`toolCallEnded`); the agy backend's hook handlers
 * (`connection/agy/hook-handlers.ts`) translate agy's wire payloads into those calls, the own-tool server asks
 * them in-process. A call is charged to the turn running when it arrives; where a step index exists, a call
 * whose step was seen before that turn began belongs to an ended turn instead.
 */

import type { McpServerConfig } from '../connection/agy/index.js';
import type { ConnectionHost, HostNeeds, StopVerdict, ToolGateOptions } from '../connection/host.js';
import type { ContentPart } from '../content/content.js';
import { type BudgetScope, ToolCallGate } from '../conversation/budget.js';
import { ConfigError } from '../errors.js';
import type { Hook } from '../hooks/kinds.js';
import { HookRunner, toolCallDecision } from '../hooks/runner.js';
import type { HookToolResult } from '../hooks/types.js';
import type { Logger } from '../logger.js';
import type { Step } from '../model/step.js';
import type { StopEvent } from '../model/stop.js';
import type {
  ToolCallDecision,
  ToolCallOutcome,
  ToolErrorReplacement,
  ToolInvocation,
} from '../model/tool-call.js';
import type { ToolContextHost } from '../model/tool-context.js';
import type { DeniedBy, TurnResult } from '../model/turn-result.js';
import { enforce } from '../policy/enforce.js';
import type { PolicyList } from '../policy/types.js';
import { SteeringQueue } from './steering.js';
import { foldDenials, recordDenial, TurnLedger, type TurnState } from './turn-ledger.js';

/** Who denies a call past `budget.maxToolCalls`. */
const MAX_TOOL_CALLS: DeniedBy = { kind: 'budget', name: 'maxToolCalls' };

export interface ControlPlaneOptions {
  hooks: readonly Hook[];
  /** undefined → the default policy `confirmRunCommand()`; [] → none. */
  policies: PolicyList;
  mcpServers: Record<string, McpServerConfig>;
  askUserTimeoutMs?: number | undefined;
  /** Install agy's PreInvocation hook for `'next-step'` steering. */
  steering: boolean;
  /** `budget.maxToolCalls`: calls past it are denied before they run (the turn then ends budget_exceeded). */
  maxToolCalls?: { limit: number; scope: BudgetScope } | undefined;
  /** What the agent's own tools' context reaches of the session (the conversation id, `send`). */
  toolContext?: ToolContextHost | undefined;
  logger: Logger;
}

export class ControlPlane implements ConnectionHost {
  readonly runner: HookRunner;
  readonly #logger: Logger;
  readonly #mcpServers: Record<string, McpServerConfig>;
  /** Which turn each call belongs to, and the SDK's denials per turn. */
  readonly #ledger = new TurnLedger();
  /** Steering messages waiting for the next model call. */
  readonly steering = new SteeringQueue();
  readonly #steering: boolean;
  readonly #toolGate: ToolCallGate | undefined;
  readonly toolContext: ToolContextHost | undefined;

  constructor(o: ControlPlaneOptions) {
    this.#logger = o.logger;
    this.toolContext = o.toolContext;
    this.#mcpServers = o.mcpServers;
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
   * configuration error. Write-capable: a built-in write tool left on by `capabilities`, `--dangerously-skip-
   * permissions`, agy's `--mode accept-edits` or `--sandbox`, in-process tools, MCP servers, or an ACP backend
   * (on every backend alike).
   */
  static guard(o: { policies: PolicyList; hooks: readonly Hook[]; writeCapable: boolean }): void {
    if (!o.writeCapable || o.policies.length > 0 || o.hooks.some((h) => h.kind === 'preToolCall')) return;
    // Python's message (agent.py), in this SDK's names.
    throw new ConfigError(
      'policies',
      'write tools or MCP servers are enabled without a safety policy. Add policies: [policy.allowAll()] to ' +
        "approve all tool calls, or policies: [policy.denyAll(), policy.allow('tool_name')] to selectively allow " +
        'specific tools (or a hooks.preToolCall hook, or capabilities: { enabledTools: BuiltinTools.readOnly() }).',
    );
  }

  /** Which decisions the backend must ask for: only what the registered hooks and the config need. */
  readonly needs = (): HostNeeds => {
    return {
      toolGate:
        this.runner.has('preToolCall') ||
        this.#toolGate !== undefined ||
        Object.values(this.#mcpServers).some((s) => s.enabledTools !== undefined),
      toolResults: this.runner.has('postToolCall') || this.runner.has('onToolError'),
      stop: this.runner.has('stop'),
      steering: this.#steering,
    };
  };

  /** Calls `watcher` with whether steering messages wait, now and on every change (see `ConnectionHost`). */
  readonly watchSteering = (watcher: (pending: boolean) => void): (() => void) =>
    this.steering.watch(watcher);

  /**
   * Starts a turn: runs preTurn hooks on the prompt text, the prompt's parts on their turn context; a deny
   * names the hook.
   */
  async beginTurn(
    promptText: string,
    parts: readonly ContentPart[] = [],
  ): Promise<{ allow: boolean; message?: string; hook?: string }> {
    const ctx = this.runner.beginTurn(parts);
    this.#ledger.begin(ctx);
    this.#toolGate?.beginTurn();
    const outcome = await this.runner.dispatchPreTurn(promptText, ctx);
    if (outcome.allow) return { allow: true };
    const hook = outcome.hook ?? 'preTurn';
    this.#logger.info(`turn denied by hook '${hook}': ${outcome.message ?? 'no reason'}`);
    return { allow: false, message: outcome.message ?? `denied by hook '${hook}'`, hook };
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
    if (step.type === 'agent_response' && !step.subagent && step.textDelta) {
      this.#ledger.noteResponseText(step.stepIndex, step.textDelta);
    }
    const turn = this.#ledger.current;
    if (step.type === 'compaction' && step.state === 'DONE' && turn) {
      void this.runner.dispatchCompaction(turn.ctx, { stepIndex: step.stepIndex, step });
    }
  }

  /**
   * Records every verdict the backend acted on that was not `allow` — from the policies, from raw `agyHooks`,
   * or the backend's fail-closed fallback (a hook that threw or timed out) — so the denial reaches
   * `result.deniedActions` and the turn cannot end `success`.
   */
  readonly toolCallAnswered = (key: unknown, call: ToolInvocation, verdict: ToolCallDecision): void => {
    // The turn the call belonged to, not whichever turn is current when a slow answer comes back. A request
    // never noted (input that reached no handler) is charged to the turn running now.
    const turn = this.#ledger.takeRequest(key, call.stepIndex);
    if (verdict.allow) return;
    recordDenial(turn, call, verdict.reason, verdict.deniedBy ?? { kind: 'sdk' }, this.#logger);
  };

  /** Notes which turn a tool call request arrived in (called before any decision runs). */
  readonly toolCallRequested = (key: object, call: ToolInvocation): void => {
    this.#ledger.noteRequest(key, call.stepIndex);
  };

  /**
   * The one gate of every tool call (see `ConnectionHost.gateToolCall`): a late call from an ended turn is
   * denied; an own tool a backend asks about passes (it is gated when it runs); then the MCP server's
   * `enabledTools`, the budget, and the policies and `preToolCall` hooks, in that order. Denials of calls a
   * backend runs are recorded by `toolCallAnswered`, from the decision the backend acts on; an own tool's
   * here, since this decision is final.
   */
  readonly gateToolCall = async (
    call: ToolInvocation,
    opts: ToolGateOptions = {},
  ): Promise<ToolCallDecision> => {
    // A late call from a turn that already ended: nothing to ask anyone about; deny it.
    if (this.#ledger.current && !this.#ledger.turnOf(call.stepIndex))
      return { allow: false, reason: 'the turn that made this call has ended', deniedBy: { kind: 'sdk' } };
    if (opts.ownTool === 'asked') return { allow: true };
    const turn = this.#ledger.current;
    const decision = await this.#decide(call, turn);
    if (!decision.allow && opts.ownTool === 'running')
      recordDenial(turn, call, decision.reason, decision.deniedBy ?? { kind: 'sdk' }, this.#logger);
    return decision;
  };

  /** The gate under its former name (see `ConnectionHost.gateBackendToolCall`). */
  readonly gateBackendToolCall = (
    call: ToolInvocation,
    opts: { gatedInProcess?: boolean } = {},
  ): Promise<ToolCallDecision> => this.gateToolCall(call, opts.gatedInProcess ? { ownTool: 'asked' } : {});

  async #decide(call: ToolInvocation, turn: TurnState | undefined): Promise<ToolCallDecision> {
    if (call.server !== undefined) {
      const enabled = this.#mcpServers[call.server]?.enabledTools;
      if (enabled && !enabled.includes(call.name)) {
        return {
          allow: false,
          reason: `tool '${call.name}' is not in enabledTools of MCP server '${call.server}'`,
          deniedBy: { kind: 'config', field: `mcpServers.${call.server}.enabledTools` },
        };
      }
    }
    const spent = this.#toolGate?.spend();
    if (spent) return { allow: false, reason: spent, deniedBy: MAX_TOOL_CALLS };
    if (!this.runner.has('preToolCall')) return { allow: true };
    const outcome = await this.runner.dispatchPreToolCall(turn?.ctx ?? this.runner.beginTurn(), call);
    turn?.operations.set(call.id, { op: outcome.operation, call: outcome.call });
    return toolCallDecision(outcome);
  }

  /**
   * The one end of every tool call: `onToolError` then `postToolCall` for a failed one, `postToolCall` for a
   * success; a call denied before it ran reaches neither `postToolCall` (the turn's `deniedActions` has it) nor,
   * unless the SDK refused it in-process, `onToolError`. The hooks see the call as the gate's hooks left it. For
   * a call the SDK ran in-process, `onToolError`'s replacement is what the model sees (and postToolCall's
   * `error`); a backend that ran the tool itself ignores a replacement, so its own error stands.
   */
  readonly toolCallEnded = async (
    call: ToolInvocation,
    outcome: ToolCallOutcome,
  ): Promise<ToolErrorReplacement | undefined> => {
    if (!this.runner.has('postToolCall') && !this.runner.has('onToolError')) return undefined;
    // A late one from an ended turn (by its step index) runs on a context of its own, never the next turn's.
    const turn = this.#ledger.turnOf(call.stepIndex);
    const known = turn?.operations.get(call.id);
    const seen = known?.call ?? call;
    const op = known?.op ?? (turn?.ctx ?? this.runner.beginTurn()).startOperation(call.id);
    if (outcome.error === undefined) {
      const event: HookToolResult = { call: seen };
      if (outcome.output !== undefined) event.output = outcome.output;
      await this.runner.dispatchPostToolCall(op, event);
      return undefined;
    }
    const replacement = await this.runner.dispatchToolError(op, {
      call: seen,
      error: { message: outcome.error },
    });
    if (!outcome.inProcess) {
      if (replacement !== undefined) {
        this.#logger.info(
          `onToolError replacement for built-in tool '${call.name}' (agy ignores PostToolUse output): ${replacement}`,
        );
      }
      // The backend ran the tool and ignores a replacement, so the model saw the tool's own error.
      await this.runner.dispatchPostToolCall(op, { call: seen, error: { message: outcome.error } });
      return undefined;
    }
    // postToolCall sees the failure as the model does (the replacement); a denied call never ran, and is
    // reported in the turn's deniedActions instead.
    if (!outcome.denied)
      await this.runner.dispatchPostToolCall(op, {
        call: seen,
        error: { message: replacement ?? outcome.error },
      });
    return replacement === undefined
      ? undefined
      : { isError: true, content: [{ type: 'text', text: replacement }] };
  };

  /** The model wants to stop: the stop hooks may keep it going. */
  readonly onStop = async (event: Omit<StopEvent, 'continuationCount'>): Promise<StopVerdict | undefined> => {
    // A stop carries no step index: it belongs to the turn running as it arrives. With none (a late call from
    // an ended turn), there is nothing to keep going, so the model may stop and no stop hook runs.
    const turn = this.#ledger.current;
    if (!turn) return undefined;
    // agy's Stop payload has no response text (docs/reference/hooks.md#stop-payload): the turn's latest
    // response as the SDK saw it stream stands in (Python's `StopArgs.response_text`).
    const responseText = event.responseText ?? turn.response?.text;
    const outcome = await this.runner.dispatchStop(turn.ctx, {
      ...event,
      ...(responseText !== undefined && { responseText }),
      continuationCount: turn.continuations,
    });
    if (outcome.decision !== 'continue') return undefined;
    turn.continuations++;
    return { reason: outcome.reason };
  };

  /** Before each model call: the steering messages queued for the next step. */
  readonly beforeModelCall = (): string[] => {
    // A call arriving between turns belongs to an ended one, and steering queued for the next turn must not be
    // spent on it (it rides the next prompt instead).
    if (!this.#ledger.current) return [];
    return this.steering.take();
  };
}

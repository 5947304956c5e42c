/**
 * The agy hook adapter's request side: agy's PreToolUse / PostToolUse / Stop / PreInvocation calls turned
 * into typed calls on the host (`ToolCallHost`), and the host's verdicts turned back into agy's answers.
 * All agy wire knowledge about hooks (`call_mcp_tool` unwrapping, `ServerName`, `stepIdx`, `toolResult`,
 * `overwrite.Arguments`, `injectSteps`) stays here and in `hook-adapter.ts`; the control plane sees only
 * `ToolInvocation`, `StopEvent` and plain text.
 *
 * Real agy payloads (agy-real/hooks-anti-samcheonpo-agy-1.3.0) carry no event name (the route says which
 * event a call is), no `stepIdx` on PreInvocation and Stop, and no tool output on PostToolUse (only `error`,
 * empty even for a command that failed).
 */
import { isRecord } from '../../internal/guards.js';
import type { Logger } from '../../logger.js';
import type { DeniedBy } from '../../model/turn-result.js';
import type {
  AgyHookInput,
  AgyHookRegistration,
  InvocationOutput,
  PreToolUseOutput,
  StopOutput,
} from '../../protocol/hook-wire.js';
import type { ToolCallDecision, ToolCallHost } from '../host.js';
import type { HookAnswerObserver, HookEndpoint, HookHandler } from '../tool-server/listener-hook.js';
import { OWN_TOOL_SERVER } from '../tool-server/server-name.js';
import type { WireTap } from '../wire-tap.js';
import { agyInfo, bareOutput, errorText, toHookCall } from './hook-adapter.js';
import {
  approvesCall,
  type PreToolUseDialect,
  preToolUseDialect,
  toAgyPreToolUseAnswer,
} from './pre-tool-answer.js';
import { createHookDispatcher } from './session/hook-dispatcher.js';

/** Who denied when a raw `agyHooks` PreToolUse handler did. */
const RAW_HOOKS: DeniedBy = { kind: 'hook', name: 'agyHooks' };

/** How many SDK denials may wait for their answer to be observed (agy runs tools one at a time). */
const MAX_PENDING_DENIALS = 64;

/** Options of {@link AgyHookHandlers}. */
export interface AgyHookHandlersOptions {
  /** The agent serves its own tools (MCP server `agy-sdk_tools`), gated in-process rather than here. */
  hasOwnTools: boolean;
  /** The user's raw `agyHooks`: on each event they run first, the SDK's own handlers after them. */
  agyHooks?: readonly AgyHookRegistration[] | undefined;
  /** Where a malformed raw answer is reported. */
  logger?: Logger | undefined;
  /** A recorder that sees each hook call as it arrives and the answer sent. */
  tap?: Pick<WireTap, 'hookRequest' | 'hookAnswer'> | undefined;
  /** Called for each answer sent: a hook call is a sign of life although agy's stdout is quiet. */
  onAnswer?: (() => void) | undefined;
  /**
   * The running agy's version (its `--version` probe; null when unknown): a PreToolUse approval is written
   * the way that version honours it (`pre-tool-answer.ts`). Without it, the pre-1.3.3 form.
   */
  agyVersion?: (() => Promise<string | null>) | undefined;
  /** True once the version probe was abandoned because the session is closing: its null is not news. */
  versionProbeAbandoned?: (() => boolean) | undefined;
}

/**
 * agy's hook calls → the host's typed methods, and back: the listener's hook endpoint for an agy session. A
 * hook call reaches the host by this one object only: {@link AgyHookHandlers.answer} notes a PreToolUse
 * request (`toolCallRequested`) and runs the raw `agyHooks` and the SDK's own handlers (`gateToolCall`,
 * …); {@link AgyHookHandlers.answered} turns the answer agy received into the verdict (`toolCallAnswered`).
 */
export class AgyHookHandlers implements HookEndpoint {
  readonly #host: ToolCallHost;
  readonly #hasOwnTools: boolean;
  readonly #tap: AgyHookHandlersOptions['tap'];
  readonly #onAnswer: (() => void) | undefined;
  readonly #registrations: readonly AgyHookRegistration[];
  readonly #rawEvents: ReadonlySet<string>;
  readonly #dispatch: HookHandler;
  readonly #agyVersion: (() => Promise<string | null>) | undefined;
  readonly #versionProbeAbandoned: () => boolean;
  readonly #logger: Logger | undefined;
  /** How the last PreToolUse answer was written, so {@link AgyHookHandlers.answered} reads it as agy does. */
  #dialect: PreToolUseDialect = 'decision';
  /**
   * The SDK's own PreToolUse denials by call id, until agy's answer is observed: the wire answer carries only
   * the reason, and this says who decided. Bounded: an entry whose answer never comes is dropped oldest first.
   */
  readonly #denials = new Map<string, Extract<ToolCallDecision, { allow: false }>>();
  #warnedUnknownVersion = false;

  constructor(host: ToolCallHost, o: AgyHookHandlersOptions) {
    this.#host = host;
    this.#agyVersion = o.agyVersion;
    this.#versionProbeAbandoned = o.versionProbeAbandoned ?? (() => false);
    this.#logger = o.logger;
    this.#hasOwnTools = o.hasOwnTools;
    this.#tap = o.tap;
    this.#onAnswer = o.onAnswer;
    this.#rawEvents = new Set((o.agyHooks ?? []).map((r) => r.event));
    this.#registrations = [...(o.agyHooks ?? []), ...this.#own()];
    this.#dispatch = createHookDispatcher(this.#registrations, o.logger);
  }

  /** The agy hooks to install (hooks.json): the raw `agyHooks`, then the SDK's own, only what the host needs. */
  registrations(): AgyHookRegistration[] {
    return [...this.#registrations];
  }

  /**
   * Whether agy's PreInvocation hook only delivers steering (no raw `agyHooks` handler on it) and the host
   * says when messages wait: then it needs calling only while they do (`SessionRuntimeOptions.gatePreInvocation`).
   */
  get preInvocationIsSteeringOnly(): boolean {
    return (
      this.#host.watchSteering !== undefined &&
      !this.#rawEvents.has('PreInvocation') &&
      this.#registrations.some((r) => r.event === 'PreInvocation')
    );
  }

  /** A hook call arrived: a PreToolUse is charged to the turn running now, then the handlers answer it. */
  readonly answer: HookHandler = (event, input, context) => {
    this.#tap?.hookRequest(event, input);
    if (event === 'PreToolUse' && isRecord(input))
      this.#host.toolCallRequested(input, toHookCall(input as AgyHookInput).call);
    const answer = this.#dispatch(event, input, context);
    return event === 'PreToolUse' ? this.#inAgyDialect(answer) : answer;
  };

  /**
   * The dispatcher's PreToolUse answer as the running agy version reads it (docs/reference/hooks.md#pretooluse-answer-by-version).
   * The version probe runs beside the handlers; a rejection of either lands in the listener's fallback (a deny).
   */
  async #inAgyDialect(answer: unknown): Promise<unknown> {
    const version = this.#agyVersion?.().catch(() => null) ?? Promise.resolve(null);
    const [decided, agyVersion] = await Promise.all([answer, version]);
    this.#dialect = preToolUseDialect(agyVersion);
    if (
      agyVersion === null &&
      this.#agyVersion &&
      !this.#warnedUnknownVersion &&
      // A close (Ctrl-C, `agent.close()`) abandons the probe: the call is answered, but warning then would
      // print after the session's last line about a version nobody could learn.
      !this.#versionProbeAbandoned() &&
      approvesCall(decided, 'decision')
    ) {
      this.#warnedUnknownVersion = true;
      this.#logger?.warn(
        'agy\'s version is unknown: approved tool calls are answered {"decision":"allow"}, which agy 1.3.3 and later hand to their own permission check (denied headless)',
      );
    }
    return toAgyPreToolUseAnswer(decided, this.#dialect);
  }

  /**
   * The one answer agy received for a hook call — the handler's, a raw `agyHooks` handler's, or the
   * listener's fail-closed fallback — as a verdict, so every denial reaches the turn's result.
   */
  readonly answered: HookAnswerObserver = (event, input, answer) => {
    this.#onAnswer?.();
    this.#tap?.hookAnswer(event, input, answer);
    if (event !== 'PreToolUse') return;
    // Input that never reached a handler (too large, not JSON) still gets a verdict, charged by the host.
    const { call } = toHookCall(isRecord(input) ? (input as AgyHookInput) : {});
    const own = this.#denials.get(call.id);
    this.#denials.delete(call.id);
    let verdict: ToolCallDecision = { allow: true };
    if (!approvesCall(answer, this.#dialect) && isRecord(answer)) {
      const reason =
        typeof answer.reason === 'string' ? answer.reason : `agy hook answered ${String(answer.decision)}`;
      verdict =
        own?.reason === reason
          ? own
          : // Not the SDK's decision: a raw agyHooks handler's, or the listener's fail-closed fallback.
            {
              allow: false,
              reason,
              deniedBy: this.#rawEvents.has('PreToolUse') ? RAW_HOOKS : { kind: 'sdk' },
            };
    }
    this.#host.toolCallAnswered(input, call, verdict);
  };

  /** The SDK's own handlers: only the events the host needs. */
  #own(): AgyHookRegistration[] {
    const needs = this.#host.needs();
    const regs: AgyHookRegistration[] = [];
    if (needs.toolGate) regs.push({ event: 'PreToolUse', handler: (i) => this.#preToolUse(i) });
    if (needs.toolResults) regs.push({ event: 'PostToolUse', handler: (i) => this.#postToolUse(i) });
    if (needs.stop) regs.push({ event: 'Stop', handler: (i) => this.#stop(i) });
    if (needs.steering) regs.push({ event: 'PreInvocation', handler: () => this.#preInvocation() });
    return regs;
  }

  async #preToolUse(input: AgyHookInput): Promise<PreToolUseOutput> {
    const { call, mcp } = toHookCall(input);
    // The agent's own tools are gated in-process, before their handler; gating them here too would ask twice.
    // Matched on agy's exact server name, and only when the agent serves tools (a user server can't pose as it).
    const gatedInProcess = !!mcp && this.#hasOwnTools && mcp.agyServer === OWN_TOOL_SERVER;
    const verdict = await this.#host.gateToolCall(call, gatedInProcess ? { ownTool: 'asked' } : {});
    if (!verdict.allow) {
      if (this.#denials.size >= MAX_PENDING_DENIALS) this.#denials.delete(this.#denials.keys().next().value!);
      this.#denials.set(call.id, verdict);
      return { decision: 'deny', reason: verdict.reason };
    }
    if (!verdict.args) return { decision: 'allow' };
    // For MCP calls the model's arguments sit inside `Arguments`.
    return { decision: 'allow', overwrite: mcp ? { Arguments: verdict.args } : verdict.args };
  }

  async #postToolUse(input: AgyHookInput): Promise<void> {
    if (this.#hasOwnTools && input.toolCall?.args?.ServerName === OWN_TOOL_SERVER) return; // seen in-process
    const { call } = toHookCall(input);
    const result = isRecord(input.toolResult) ? input.toolResult : undefined;
    const error = errorText(input.error) ?? errorText(result?.error);
    if (error !== undefined) {
      await this.#host.toolCallEnded(call, { error });
      return;
    }
    const output = bareOutput(input);
    await this.#host.toolCallEnded(call, output !== undefined ? { output } : {});
  }

  async #stop(input: AgyHookInput): Promise<StopOutput> {
    const errorMessage = errorText(input.error);
    const agy = agyInfo(input);
    const verdict = await this.#host.onStop({
      ...(typeof input.responseText === 'string' && { responseText: input.responseText }),
      ...(typeof input.terminationReason === 'string' && { terminationReason: input.terminationReason }),
      ...(errorMessage !== undefined && { errorMessage }),
      ...(typeof input.executionNum === 'number' && { executionNum: input.executionNum }),
      ...(typeof input.fullyIdle === 'boolean' && { fullyIdle: input.fullyIdle }),
      ...(agy && { agy }),
    });
    if (!verdict) return {};
    return { decision: 'continue', reason: verdict.reason };
  }

  #preInvocation(): InvocationOutput {
    const steers = this.#host.beforeModelCall();
    return steers.length > 0 ? { injectSteps: steers.map((userMessage) => ({ userMessage })) } : {};
  }
}

/**
 * The recording side of telemetry: one `AgentTracing` per Agent, created only when `@opentelemetry/api` is
 * installed and a tracer or meter provider is there (else the Agent holds none and calls nothing). It builds
 * the span tree of docs/reference/observability.md#span-tree from what already passes through the SDK: the
 * Conversation's turn observer (turns, model steps, tool steps, subagents), the host's tool decisions, the
 * agent's own tool handlers, timed hooks, and the gateway's upstream requests.
 */
import type { Attributes, Context, Counter, Histogram, Meter, Span, Tracer } from '@opentelemetry/api';
import type { ConnectionHost, ToolCallVerdict } from '../connection/host.js';
import { WatchdogTimeoutError } from '../errors.js';
import type { UpstreamObserver, UpstreamTrace } from '../gateway/gateway.js';
import type { UsageMetadata } from '../gateway/gemini-types.js';
import type { UpstreamKind } from '../gateway/upstream/upstream.js';
import type { HookToolCall } from '../hooks/types.js';
import { describeError, type Logger } from '../logger.js';
import type { Step, ToolCall, Usage } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';
import { addUsage } from '../model/usage.js';
import type { ToolDefinition } from '../tools/tool.js';
import { isCallToolResult } from '../tools/tool-result.js';
import { ATTR, METRIC, OP, SPAN } from './attributes.js';
import type { Otel } from './otel-api.js';
import type { TurnObserver } from './turn-observer.js';

/** A decision or hook shorter than this leaves no span of its own ("spans for hooks that took time"). */
export const MIN_TIMED_SPAN_MS = 1;

/** What `AgentTracing` needs from the Agent. */
export interface TracingOptions {
  api: Otel;
  /** Undefined when only metrics are on. */
  tracer: Tracer | undefined;
  /** Undefined when only traces are on. */
  meter: Meter | undefined;
  /** Record prompts, answers, tool arguments and results. */
  captureContent: boolean;
  /**
   * The MCP server names agy reports the agent's own tools under (bare and plugin-prefixed): their spans come
   * from the gate and the handler, not from their steps.
   */
  ownToolServers: readonly string[];
  /** `gen_ai.provider.name` of the model calls (`gcp.gemini` on agy, the upstream's in provider mode). */
  providerName: string;
  /** The model turns run on, when known. */
  model: () => string | undefined;
  /** The agent's name (`gen_ai.agent.name`). */
  agentName: string;
  /** Backend processes started so far (for the restart counter), when the backend counts them. */
  processesStarted: () => number | undefined;
  /** Prices a usage for the upstream's model (provider mode), `null` when unknown. */
  priceUpstream: (model: string, usage: Usage) => number | null;
  /** Where a telemetry failure is reported (it never reaches the turn). */
  logger: Logger;
}

interface ToolSpan {
  span: Span;
  ctx: Context;
  /** The host's (or the backend's final) verdict, when a decision ran. */
  verdict: ToolCallVerdict | undefined;
  /** The time the tool step ended, for calls whose end waits for the turn's result (soft denials). */
  endTime: number | undefined;
  ended: boolean;
}

interface TurnTrace {
  span: Span;
  ctx: Context;
  startedAt: number;
  /** Model steps seen but not finished, by `<conversation>:<step>`: their start time. */
  chats: Map<string, number>;
  /** Tool calls by call id (`<conversation>:<step>`, as both the steps and the hooks name them). */
  tools: Map<string, ToolSpan>;
  /** DONE tool calls without output or error: agy's soft denial is known only at the turn's result. */
  silent: Array<{ state: ToolSpan; call: ToolCall }>;
  /** Subagent spans by the subagent's conversation id. */
  subagents: Map<string, { span: Span; ctx: Context }>;
}

interface Instruments {
  tokenUsage: Histogram;
  duration: Histogram;
  turns: Counter;
  toolCalls: Counter;
  watchdog: Counter;
  restarts: Counter;
}

/** Epoch milliseconds with sub-millisecond precision (OpenTelemetry's numeric time input). */
function now(): number {
  return performance.timeOrigin + performance.now();
}

function usageAttributes(usage: Usage, into: Attributes): Attributes {
  into[ATTR.inputTokens] = usage.inputTokens;
  into[ATTR.outputTokens] = usage.outputTokens;
  // An unreported count (null) gets no attribute rather than a 0 that reads as "none".
  if (usage.thinkingTokens !== null) into[ATTR.reasoningTokens] = usage.thinkingTokens;
  if (usage.cacheReadTokens !== null) into[ATTR.cacheReadTokens] = usage.cacheReadTokens;
  into[ATTR.totalTokens] = usage.totalTokens;
  if (typeof usage.cacheWriteTokens === 'number') into[ATTR.cacheWriteTokens] = usage.cacheWriteTokens;
  // A null cost is unknown: no attribute, never a 0 that reads as "free".
  if (typeof usage.costUsd === 'number') into[ATTR.costUsd] = usage.costUsd;
  return into;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

/** Gemini's usageMetadata → the SDK's usage (the gateway translation's arithmetic, provider-bridge.ts). */
function fromGemini(u: UsageMetadata): Usage {
  const cached = u.cachedContentTokenCount ?? 0;
  const thoughts = u.thoughtsTokenCount ?? 0;
  const input = Math.max(0, u.promptTokenCount - cached);
  const output = u.candidatesTokenCount + thoughts;
  return {
    inputTokens: input,
    outputTokens: output,
    thinkingTokens: thoughts,
    cacheReadTokens: cached,
    totalTokens: input + output,
  };
}

const UPSTREAM_PROVIDER: Record<UpstreamKind, string> = {
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  anthropic: 'anthropic',
};

/** Spans and metrics of one Agent. Every method is contained: telemetry never breaks a turn. */
export class AgentTracing implements TurnObserver {
  readonly #o: TracingOptions;
  readonly #api: Otel;
  readonly #tracer: Tracer | undefined;
  readonly #metrics: Instruments | undefined;
  #session: { span: Span; ctx: Context } | undefined;
  #turn: TurnTrace | undefined;
  /** Model steps already given a span, across the conversation (agy resends a DONE step; count it once). */
  readonly #chatDone = new Set<string>();
  /** Own-tool spans opened by the gate, waiting for their handler, by the tool's author name. */
  readonly #ownPending = new Map<string, ToolSpan[]>();
  #processes: number | undefined;
  readonly #sessionUsage: Usage = {
    inputTokens: 0,
    outputTokens: 0,
    thinkingTokens: 0,
    cacheReadTokens: 0,
    totalTokens: 0,
  };

  constructor(options: TracingOptions) {
    this.#o = options;
    this.#api = options.api;
    this.#tracer = options.tracer;
    const meter = options.meter;
    this.#metrics = meter && {
      tokenUsage: meter.createHistogram(METRIC.tokenUsage, {
        description: 'Tokens used per operation, by token type',
        unit: '{token}',
        advice: {
          explicitBucketBoundaries: [
            1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
          ],
        },
      }),
      duration: meter.createHistogram(METRIC.operationDuration, {
        description: 'Duration of GenAI operations (turns, model steps, upstream requests)',
        unit: 's',
        advice: {
          explicitBucketBoundaries: [
            0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
          ],
        },
      }),
      turns: meter.createCounter(METRIC.turns, { description: 'Turns by final status', unit: '{turn}' }),
      toolCalls: meter.createCounter(METRIC.toolCalls, {
        description: 'Tool calls by outcome (allowed, denied, error)',
        unit: '{call}',
      }),
      watchdog: meter.createCounter(METRIC.watchdogTimeouts, {
        description: 'Turns ended by the SDK watchdog, by kind (idle, turn)',
        unit: '{timeout}',
      }),
      restarts: meter.createCounter(METRIC.restarts, {
        description: 'Backend processes started after the first (recovery, model and schema switches)',
        unit: '{restart}',
      }),
    };
  }

  // ---- Session -------------------------------------------------------------------------------------------

  /** The agent is starting: the session span opens (every turn is its child). */
  sessionStarting(): void {
    this.#contain('sessionStarting', () => this.#sessionStarting());
  }

  #sessionStarting(): void {
    if (!this.#tracer) return;
    const span = this.#tracer.startSpan(SPAN.session, {
      attributes: { [ATTR.agentName]: this.#o.agentName, [ATTR.provider]: this.#o.providerName },
    });
    this.#session = { span, ctx: this.#api.trace.setSpan(this.#api.context.active(), span) };
  }

  /** The backend is up: the conversation id and model are known. */
  sessionStarted(conversationId: string | undefined): void {
    this.#contain('sessionStarted', () => this.#sessionStarted(conversationId));
  }

  #sessionStarted(conversationId: string | undefined): void {
    this.#processes = this.#o.processesStarted();
    const span = this.#session?.span;
    if (!span) return;
    if (conversationId) span.setAttribute(ATTR.conversationId, conversationId);
    const model = this.#o.model();
    if (model) span.setAttribute(ATTR.requestModel, model);
  }

  /** The agent closed (or failed to start): the session span ends with the usage of its turns. */
  sessionEnded(error?: unknown): void {
    this.#contain('sessionEnded', () => this.#sessionEnded(error));
  }

  #sessionEnded(error?: unknown): void {
    const session = this.#session;
    if (!session) return;
    this.#session = undefined;
    session.span.setAttributes(usageAttributes(this.#sessionUsage, {}));
    if (error !== undefined) {
      session.span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: String(error) });
      session.span.setAttribute(ATTR.errorType, error instanceof Error ? error.name : 'error');
    }
    session.span.end();
  }

  /** Runs a telemetry step; a failure is logged and goes no further (telemetry never breaks a turn). */
  #contain(what: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.#o.logger.warn(`telemetry: ${what} failed: ${describeError(error)}`);
    }
  }

  #parent(): Context {
    return this.#turn?.ctx ?? this.#session?.ctx ?? this.#api.context.active();
  }

  // ---- Turns (the Conversation's observer) ---------------------------------------------------------------

  turnStarted(): void {
    this.#contain('turnStarted', () => this.#turnStarted());
  }

  #turnStarted(): void {
    if (!this.#tracer) {
      this.#turn = undefined;
      return;
    }
    const startedAt = now();
    const model = this.#o.model();
    const attributes: Attributes = {
      [ATTR.operation]: OP.invokeAgent,
      [ATTR.agentName]: this.#o.agentName,
      [ATTR.provider]: this.#o.providerName,
    };
    if (model) attributes[ATTR.requestModel] = model;
    const parent = this.#session?.ctx ?? this.#api.context.active();
    const span = this.#tracer.startSpan(
      `${OP.invokeAgent} ${this.#o.agentName}`,
      { attributes, startTime: startedAt, kind: this.#api.SpanKind.INTERNAL },
      parent,
    );
    this.#turn = {
      span,
      ctx: this.#api.trace.setSpan(parent, span),
      startedAt,
      chats: new Map(),
      tools: new Map(),
      silent: [],
      subagents: new Map(),
    };
  }

  turnSent(text: readonly string[]): void {
    this.#contain('turnSent', () => this.#turnSent(text));
  }

  #turnSent(text: readonly string[]): void {
    const turn = this.#turn;
    if (!turn || !this.#o.captureContent) return;
    turn.span.setAttribute(
      ATTR.inputMessages,
      json([{ role: 'user', parts: text.map((content) => ({ type: 'text', content })) }]),
    );
  }

  step(step: Step): void {
    this.#contain('step', () => this.#step(step));
  }

  #step(step: Step): void {
    const turn = this.#turn;
    if (!turn || !this.#tracer) return;
    const parent = step.subagent ? this.#subagent(turn, step.subagent) : turn.ctx;
    const call = step.tool;
    if (call && !(call.mcpServer !== undefined && this.#o.ownToolServers.includes(call.mcpServer)))
      this.#toolStep(turn, call, parent);
    if (step.type === 'agent_response' || step.usage) this.#chatStep(turn, step, parent);
  }

  turnEnded(result: TurnResult): void {
    this.#contain('turnEnded', () => this.#turnEnded(result));
  }

  #turnEnded(result: TurnResult): void {
    const turn = this.#turn;
    this.#turn = undefined;
    const end = now();
    if (turn) this.#endTurnSpans(turn, result, end);
    this.#record(result, turn ? end - turn.startedAt : result.durationMs);
  }

  #endTurnSpans(turn: TurnTrace, result: TurnResult, end: number): void {
    // Own-tool calls the gate allowed whose handler never ran (e.g. arguments rewritten into invalid ones).
    for (const queue of this.#ownPending.values()) {
      for (const state of queue) {
        state.span.setAttribute(ATTR.incomplete, true);
        this.#endTool(state, undefined, end);
      }
    }
    this.#ownPending.clear();
    for (const { state, call } of turn.silent) this.#endTool(state, call, state.endTime ?? end);
    for (const state of turn.tools.values()) {
      if (state.ended) continue;
      state.span.setAttribute(ATTR.incomplete, true);
      this.#endTool(state, undefined, end);
    }
    for (const [key, start] of turn.chats) {
      // A model step still running when the turn ended (interrupt, timeout, crash): shown, marked incomplete.
      this.#chatDone.add(key);
      const span = this.#tracer!.startSpan(
        `${OP.chat} ${this.#o.model() ?? 'default'}`,
        { startTime: start, attributes: { [ATTR.operation]: OP.chat, [ATTR.incomplete]: true } },
        turn.ctx,
      );
      span.end(end);
    }
    for (const [id, sub] of turn.subagents) {
      const usage = result.subagentUsage?.[id];
      if (usage) sub.span.setAttributes(usageAttributes(usage, {}));
      sub.span.end(end);
    }
    const span = turn.span;
    const attributes: Attributes = { [ATTR.turnStatus]: result.status };
    if (result.conversationId) attributes[ATTR.conversationId] = result.conversationId;
    if (result.model) attributes[ATTR.responseModel] = result.model;
    if (result.usage) usageAttributes(result.usage, attributes);
    if (result.budget) attributes[ATTR.budget] = result.budget;
    if (this.#o.captureContent && result.text) {
      attributes[ATTR.outputMessages] = json([
        { role: 'assistant', parts: [{ type: 'text', content: result.text }] },
      ]);
    }
    if (result.status !== 'success') {
      attributes[ATTR.errorType] = result.status;
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: result.errorMessage });
    }
    span.setAttributes(attributes);
    span.end(end);
  }

  /** Metrics of a finished turn, and the session's usage sum. */
  #record(result: TurnResult, durationMs: number): void {
    if (result.usage) {
      const u = this.#sessionUsage;
      addUsage(u, result.usage);
      if (u.costUsd !== null)
        u.costUsd = typeof result.usage.costUsd === 'number' ? (u.costUsd ?? 0) + result.usage.costUsd : null;
    }
    const m = this.#metrics;
    if (!m) return;
    const attributes: Attributes = {
      [ATTR.operation]: OP.invokeAgent,
      [ATTR.provider]: this.#o.providerName,
      [ATTR.turnStatus]: result.status,
    };
    if (result.model) attributes[ATTR.requestModel] = result.model;
    m.duration.record(durationMs / 1000, attributes);
    if (result.usage) {
      m.tokenUsage.record(result.usage.inputTokens, { ...attributes, [ATTR.tokenType]: 'input' });
      m.tokenUsage.record(result.usage.outputTokens, { ...attributes, [ATTR.tokenType]: 'output' });
    }
    m.turns.add(1, { [ATTR.turnStatus]: result.status });
    if (result.error instanceof WatchdogTimeoutError)
      m.watchdog.add(1, { [ATTR.watchdogKind]: result.error.kind });
    const started = this.#o.processesStarted();
    if (started !== undefined) {
      const before = this.#processes ?? started;
      if (started > before) m.restarts.add(started - before);
      this.#processes = started;
    }
  }

  // ---- Model steps -----------------------------------------------------------------------------------------

  #chatStep(turn: TurnTrace, step: Step, parent: Context): void {
    const key = `${step.conversationId ?? ''}:${step.stepIndex}`;
    if (this.#chatDone.has(key)) return;
    const terminal = step.state === 'DONE' || step.state === 'ERROR';
    const seen = turn.chats.get(key);
    const t = now();
    if (!terminal) {
      if (seen === undefined) turn.chats.set(key, t);
      return;
    }
    turn.chats.delete(key);
    this.#chatDone.add(key);
    const model = this.#o.model();
    const attributes: Attributes = {
      [ATTR.operation]: OP.chat,
      [ATTR.provider]: this.#o.providerName,
      [ATTR.stepIndex]: step.stepIndex,
      [ATTR.stepType]: step.type,
    };
    if (model) attributes[ATTR.requestModel] = model;
    if (step.conversationId) attributes[ATTR.conversationId] = step.conversationId;
    // Exactly the usage the turn tracker counts: DONE steps' usage, each step once.
    if (step.state === 'DONE' && step.usage) usageAttributes(step.usage, attributes);
    const span = this.#tracer!.startSpan(
      `${OP.chat} ${model ?? 'default'}`,
      { startTime: seen ?? t, attributes, kind: this.#api.SpanKind.CLIENT },
      parent,
    );
    if (step.state === 'ERROR') {
      span.setAttribute(ATTR.errorType, 'model_error');
      span.setStatus({
        code: this.#api.SpanStatusCode.ERROR,
        ...(step.message && { message: step.message }),
      });
    }
    span.end(t);
    this.#metrics?.duration.record((t - (seen ?? t)) / 1000, {
      [ATTR.operation]: OP.chat,
      [ATTR.provider]: this.#o.providerName,
      ...(model && { [ATTR.requestModel]: model }),
    });
  }

  // ---- Subagents -------------------------------------------------------------------------------------------

  #subagent(turn: TurnTrace, info: NonNullable<Step['subagent']>): Context {
    const known = turn.subagents.get(info.conversationId);
    if (known) return known.ctx;
    const name = info.typeName ?? 'subagent';
    const attributes: Attributes = {
      [ATTR.operation]: OP.invokeAgent,
      [ATTR.agentName]: name,
      [ATTR.conversationId]: info.conversationId,
      [ATTR.provider]: this.#o.providerName,
    };
    if (info.role) attributes[ATTR.subagentRole] = info.role;
    const span = this.#tracer!.startSpan(
      `${OP.invokeAgent} ${name}`,
      { attributes, links: [{ context: turn.span.spanContext() }] },
      turn.ctx,
    );
    const ctx = this.#api.trace.setSpan(turn.ctx, span);
    turn.subagents.set(info.conversationId, { span, ctx });
    return ctx;
  }

  // ---- Tool calls ------------------------------------------------------------------------------------------

  #openTool(id: string, name: string, parent: Context, server: string | undefined, start?: number): ToolSpan {
    const attributes: Attributes = {
      [ATTR.operation]: OP.executeTool,
      [ATTR.toolName]: name,
      [ATTR.toolCallId]: id,
      [ATTR.toolType]: 'function',
    };
    if (server) attributes[ATTR.mcpServer] = server;
    const span = this.#tracer!.startSpan(
      `${OP.executeTool} ${name}`,
      { attributes, ...(start !== undefined && { startTime: start }) },
      parent,
    );
    return {
      span,
      ctx: this.#api.trace.setSpan(parent, span),
      verdict: undefined,
      endTime: undefined,
      ended: false,
    };
  }

  #toolStep(turn: TurnTrace, call: ToolCall, parent: Context): void {
    let state = turn.tools.get(call.id);
    if (!state) {
      state = this.#openTool(call.id, call.name, parent, call.mcpServer);
      turn.tools.set(call.id, state);
    }
    if (state.ended || state.endTime !== undefined) return;
    if (call.state !== 'DONE' && call.state !== 'ERROR') return;
    if (this.#o.captureContent) state.span.setAttribute(ATTR.toolArguments, json(call.args));
    if (call.state === 'DONE' && call.output === undefined && call.error === undefined) {
      // Soft-denied or silent: only the turn's result says which (ToolCall.denied is set in place then).
      state.endTime = now();
      turn.silent.push({ state, call });
      return;
    }
    this.#endTool(state, call, now());
  }

  /** Ends a tool span with its outcome: denied (by whom, why), error, or allowed. */
  #endTool(state: ToolSpan, call: ToolCall | undefined, end: number, error?: string): void {
    if (state.ended) return;
    state.ended = true;
    const span = state.span;
    const verdict = state.verdict;
    let outcome: 'allowed' | 'denied' | 'error';
    if (verdict && !verdict.allow) {
      outcome = 'denied';
      span.setAttributes({ [ATTR.deniedBy]: 'sdk', [ATTR.denialReason]: verdict.reason });
    } else if (call?.denied) {
      outcome = 'denied';
      span.setAttribute(ATTR.deniedBy, 'agy');
    } else if (call?.state === 'ERROR' || error !== undefined) {
      outcome = 'error';
      span.setAttribute(ATTR.errorType, call?.error?.type ?? 'tool_error');
      span.setStatus({
        code: this.#api.SpanStatusCode.ERROR,
        message: call?.error?.message ?? error ?? 'tool error',
      });
    } else {
      outcome = 'allowed';
    }
    span.setAttribute(ATTR.toolOutcome, outcome);
    if (this.#o.captureContent && call?.output !== undefined)
      span.setAttribute(ATTR.toolResult, json(call.output));
    span.end(end);
    this.#metrics?.toolCalls.add(1, { [ATTR.toolOutcome]: outcome });
  }

  /** A decision span (policies, hooks, an `askUser` wait) under its tool span, when it took time or denied. */
  #decisionSpan(state: ToolSpan, verdict: ToolCallVerdict, start: number, end: number): void {
    if (verdict.allow && end - start < MIN_TIMED_SPAN_MS) return;
    const attributes: Attributes = { [ATTR.decision]: verdict.allow ? 'allow' : 'deny' };
    if (!verdict.allow) attributes[ATTR.denialReason] = verdict.reason;
    this.#tracer!.startSpan(SPAN.decision, { startTime: start, attributes }, state.ctx).end(end);
  }

  /** The tool span of a call the backend asks about, opened here when its step has not arrived yet. */
  #toolFor(call: HookToolCall, start: number): ToolSpan | undefined {
    const turn = this.#turn;
    if (!turn || !this.#tracer) return undefined;
    let state = turn.tools.get(call.id);
    if (!state) {
      state = this.#openTool(call.id, call.name, turn.ctx, call.server, start);
      turn.tools.set(call.id, state);
    }
    return state;
  }

  /** The host, with its tool decisions timed and recorded on the calls' spans. */
  wrapHost(host: ConnectionHost): ConnectionHost {
    if (!this.#tracer) return host;
    return {
      ...host,
      beforeToolCall: async (call, opts) => {
        const start = now();
        const verdict = await host.beforeToolCall(call, opts);
        // The agent's own tools get their span from the in-process gate (gateToolCall) instead.
        if (opts?.gatedInProcess) return verdict;
        this.#contain('beforeToolCall', () => {
          const state = this.#toolFor(call, start);
          if (!state) return;
          state.verdict = verdict;
          this.#decisionSpan(state, verdict, start, now());
        });
        return verdict;
      },
      toolCallAnswered: (key, call, verdict) => {
        host.toolCallAnswered(key, call, verdict);
        // The answer the backend acted on (a raw hook's, or a fail-closed fallback) decides the outcome.
        const state = this.#turn?.tools.get(call.id);
        if (state && !verdict.allow) state.verdict = verdict;
      },
      gateToolCall: async (call) => {
        const start = now();
        const decision = await host.gateToolCall(call);
        this.#contain('gateToolCall', () => this.#gated(call, decision, start));
        return decision;
      },
      onStop: (event) => this.hook('stop', () => host.onStop(event)),
    };
  }

  /** An own-tool call through the gate: its span opens (a denial ends it), waiting for the handler. */
  #gated(
    call: Parameters<ConnectionHost['gateToolCall']>[0],
    decision: { allow: boolean; message?: string },
    start: number,
  ): void {
    if (!this.#turn) return;
    const name = call.originalName ?? call.name;
    const state = this.#openTool(
      `${call.server}:${String(call.requestId ?? '')}`,
      name,
      this.#turn.ctx,
      // The name users know the server by (`agent.toolServerName`), not the listener's bare catalog name.
      this.#o.ownToolServers[0],
      start,
    );
    const verdict: ToolCallVerdict = decision.allow
      ? { allow: true }
      : { allow: false, reason: decision.message ?? 'denied' };
    state.verdict = verdict;
    this.#decisionSpan(state, verdict, start, now());
    if (!decision.allow) this.#endTool(state, undefined, now());
    else {
      const queue = this.#ownPending.get(name);
      if (queue) queue.push(state);
      else this.#ownPending.set(name, [state]);
    }
  }

  /**
   * The agent's own tools, each handler run inside its `execute_tool` span (opened by the gate, or here when
   * the backend has no gate), so whatever the handler traces is its child.
   */
  wrapTools(tools: readonly ToolDefinition[]): ToolDefinition[] {
    if (!this.#tracer) return [...tools];
    return tools.map((definition) => {
      const handler = definition.handler;
      const wrapped: ToolDefinition['handler'] = (args, ctx) => {
        let state: ToolSpan;
        try {
          state = this.#handlerSpan(definition.name);
        } catch (error) {
          this.#o.logger.warn(`telemetry: tool span failed: ${describeError(error)}`);
          return handler(args, ctx);
        }
        const finish = (value: unknown, thrown: unknown, failed: boolean): void => {
          const isError = failed || (isCallToolResult(value) && value.isError === true);
          if (this.#o.captureContent && !failed) state.span.setAttribute(ATTR.toolResult, json(value));
          this.#contain('tool span end', () =>
            this.#endTool(
              state,
              undefined,
              now(),
              isError ? (failed ? String(thrown) : 'tool returned an error') : undefined,
            ),
          );
        };
        return this.#api.context.with(state.ctx, async () => {
          try {
            const value = await handler(args, ctx);
            finish(value, undefined, false);
            return value;
          } catch (error) {
            finish(undefined, error, true);
            throw error;
          }
        });
      };
      return Object.freeze({ ...definition, handler: wrapped });
    });
  }

  /** The span an own-tool handler runs in: the one its gate opened, else a new one (a backend with no gate). */
  #handlerSpan(name: string): ToolSpan {
    return (
      this.#ownPending.get(name)?.shift() ??
      this.#openTool(`own:${name}`, name, this.#parent(), this.#o.ownToolServers[0])
    );
  }

  /** Runs a hook (`preTurn`, `stop`, …); a span shows it when it took time. */
  async hook<T>(name: string, run: () => Promise<T>): Promise<T> {
    const start = now();
    try {
      return await run();
    } finally {
      const end = now();
      const tracer = this.#tracer;
      if (tracer && end - start >= MIN_TIMED_SPAN_MS) {
        this.#contain(`${name} hook span`, () =>
          tracer
            .startSpan(
              `${SPAN.hook} ${name}`,
              { startTime: start, attributes: { [ATTR.hookName]: name } },
              this.#parent(),
            )
            .end(end),
        );
      }
    }
  }

  // ---- Gateway upstream requests (provider mode) -------------------------------------------------------------

  /** Observes the gateway's upstream requests: a `chat` span each, its context sent as `traceparent`. */
  upstreamObserver(): UpstreamObserver {
    return {
      start: (request) => {
        try {
          return this.#upstream(request);
        } catch (error) {
          this.#o.logger.warn(`telemetry: upstream request span failed: ${describeError(error)}`);
          return { headers: {}, firstToken() {}, end() {} };
        }
      },
    };
  }

  #upstream(request: { requestedModel: string; upstreamModel: string; kind: UpstreamKind }): UpstreamTrace {
    const started = now();
    const provider = UPSTREAM_PROVIDER[request.kind];
    const attributes: Attributes = {
      [ATTR.operation]: OP.chat,
      [ATTR.provider]: provider,
      [ATTR.requestModel]: request.upstreamModel,
      [ATTR.requestedModel]: request.requestedModel,
      [ATTR.upstreamKind]: request.kind,
    };
    const span = this.#tracer?.startSpan(
      `${OP.chat} ${request.upstreamModel}`,
      { attributes, kind: this.#api.SpanKind.CLIENT, startTime: started },
      this.#parent(),
    );
    const headers: Record<string, string> = {};
    if (span) {
      const sc = span.spanContext();
      // W3C Trace Context, written directly: it needs no globally registered propagator.
      headers.traceparent = `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
      const state = sc.traceState?.serialize();
      if (state) headers.tracestate = state;
    }
    let ended = false;
    let firstAt: number | undefined;
    const metricAttributes: Attributes = {
      [ATTR.operation]: OP.chat,
      [ATTR.provider]: provider,
      [ATTR.requestModel]: request.upstreamModel,
    };
    return {
      headers,
      firstToken: () => {
        if (firstAt !== undefined) return;
        firstAt = now();
        span?.setAttribute(ATTR.timeToFirstTokenMs, firstAt - started);
      },
      end: (usageMetadata, error) => {
        if (ended) return;
        ended = true;
        const end = now();
        if (usageMetadata) {
          const usage = fromGemini(usageMetadata);
          usage.costUsd = this.#o.priceUpstream(request.upstreamModel, usage);
          span?.setAttributes(usageAttributes(usage, {}));
          this.#metrics?.tokenUsage.record(usage.inputTokens, {
            ...metricAttributes,
            [ATTR.tokenType]: 'input',
          });
          this.#metrics?.tokenUsage.record(usage.outputTokens, {
            ...metricAttributes,
            [ATTR.tokenType]: 'output',
          });
        }
        if (error !== undefined) {
          span?.setAttribute(ATTR.errorType, 'upstream_error');
          span?.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: error });
        }
        span?.end(end);
        this.#metrics?.duration.record((end - started) / 1000, {
          ...metricAttributes,
          ...(error !== undefined && { [ATTR.errorType]: 'upstream_error' }),
        });
      },
    };
  }
}

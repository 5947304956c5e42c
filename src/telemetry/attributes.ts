/**
 * Span, attribute and metric names. The `gen_ai.*` ones follow the OpenTelemetry GenAI semantic conventions
 * (docs/reference/observability.md#genai-semantic-conventions); `agy_sdk.*` ones are ours, for what the
 * conventions do not name (tool outcomes, denials, cost, subagent roles).
 */

/** `gen_ai.operation.name` values. */
export const OP = {
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const;

/** Attribute keys. */
export const ATTR = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheWriteTokens: 'gen_ai.usage.cache_creation.input_tokens',
  reasoningTokens: 'gen_ai.usage.reasoning.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  tokenType: 'gen_ai.token.type',
  errorType: 'error.type',
  // Ours.
  totalTokens: 'agy_sdk.usage.total_tokens',
  costUsd: 'agy_sdk.usage.cost_usd',
  turnStatus: 'agy_sdk.turn.status',
  budget: 'agy_sdk.turn.budget',
  stepIndex: 'agy_sdk.step.index',
  stepType: 'agy_sdk.step.type',
  incomplete: 'agy_sdk.incomplete',
  mcpServer: 'agy_sdk.tool.mcp_server',
  toolOutcome: 'agy_sdk.tool.outcome',
  deniedBy: 'agy_sdk.tool.denied_by',
  denialReason: 'agy_sdk.tool.denial_reason',
  decision: 'agy_sdk.decision',
  hookName: 'agy_sdk.hook.name',
  subagentRole: 'agy_sdk.subagent.role',
  upstreamKind: 'agy_sdk.upstream.kind',
  requestedModel: 'agy_sdk.upstream.requested_model',
  timeToFirstTokenMs: 'agy_sdk.upstream.time_to_first_token_ms',
  status: 'agy_sdk.status',
  watchdogKind: 'agy_sdk.watchdog.kind',
  poolStartReason: 'agy_sdk.pool.start_reason',
} as const;

/** Metric instrument names. */
export const METRIC = {
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
  turns: 'agy_sdk.turns',
  toolCalls: 'agy_sdk.tool_calls',
  watchdogTimeouts: 'agy_sdk.watchdog.timeouts',
  restarts: 'agy_sdk.restarts',
  // AgentPool (src/pool/pool-metrics.ts): gauges read from `pool.stats`, histograms in seconds.
  poolBusy: 'agy_sdk.pool.busy',
  poolIdle: 'agy_sdk.pool.idle',
  poolQueued: 'agy_sdk.pool.queued',
  poolPaused: 'agy_sdk.pool.paused',
  poolQueueWait: 'agy_sdk.pool.queue_wait.duration',
  poolAgentStart: 'agy_sdk.pool.agent_start.duration',
} as const;

/** Span names that are not `<operation> <target>`. */
export const SPAN = {
  session: 'agy_sdk.session',
  decision: 'agy_sdk.tool_decision',
  hook: 'agy_sdk.hook',
} as const;

/** The instrumentation scope name (tracer and meter). */
export const SCOPE = 'agy-sdk';

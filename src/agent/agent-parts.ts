/**
 * What an Agent is built from, derived from its config at construction (synchronously, so a bad config throws
 * from `new Agent()`): the validated groups, the control plane, the budget, the usage ledger, the served tool
 * names. The Agent holds these parts and wires them; none of them knows the Agent.
 */
import { DEFAULT_HOOK_TIMEOUT_MS } from '../connection/tool-server/hook-timeout.js';
import { TOOL_SERVER_NAME } from '../connection/tool-server/server-name.js';
import { BudgetTracker } from '../conversation/budget.js';
import { UsageLedger } from '../conversation/usage-ledger.js';
import { ConfigError, UnsupportedError } from '../errors.js';
import { checkedLogger, type Logger } from '../logger.js';
import { priceOf } from '../model/pricing.js';
import { ResponseSchema } from '../model/response-schema.js';
import type { ToolContextHost } from '../model/tool-context.js';
import { DEFAULT_ASK_USER_TIMEOUT_MS } from '../policy/ask-user/ask.js';
import { flattenPolicies } from '../policy/evaluate.js';
import { servedToolNames } from '../tools/names.js';
import type { ToolDefinition } from '../tools/tool.js';
import type { AgentConfig } from './config.js';
import { ControlPlane } from './control-plane.js';
import { type ValidatedConfig, validateConfig } from './validate-config.js';

/** The parts of one Agent. */
export interface AgentParts {
  /** The validated groups: agy's (session, launch, watchdog) and ACP's, each forwarded whole to its backend. */
  groups: Pick<ValidatedConfig, 'session' | 'launch' | 'watchdog' | 'acp' | 'additions' | 'attachments'>;
  /** The workspaces, resolved. */
  workspaces: string[];
  /** The agent's `responseSchema`, checked. */
  schema: ResponseSchema | undefined;
  /** The checked logger. */
  logger: Logger;
  /** Hooks, policies, the turn ledger and steering: what the backend's host calls. */
  control: ControlPlane;
  /** The hook relays' time limit (raised to cover a human's ask-user answer). */
  hookTimeoutMs: number | undefined;
  /** The budgets, when configured (its cost limit priced by the usage ledger). */
  budget: BudgetTracker | undefined;
  /** The one owner of usage: prices each turn and sums them. */
  usage: UsageLedger;
  /** Each of `config.tools` by its author's name → the name it is served under. */
  toolNames: ReadonlyMap<string, string>;
}

/**
 * Validates `config` (throws `ConfigError`/`UnsupportedError` naming the field) and builds the Agent's parts.
 * `toolContext` is what the agent's own tools read of the Agent (its conversation id, `send`).
 */
export function agentParts(config: AgentConfig, toolContext: ToolContextHost): AgentParts {
  const validated = validateConfig(config);
  const { workspaces, policies, hooks } = validated;
  const schema = config.responseSchema !== undefined ? ResponseSchema.from(config.responseSchema) : undefined;
  const logger = checkedLogger(config.logger);
  const control = new ControlPlane({
    hooks,
    policies,
    mcpServers: config.mcpServers ?? {},
    askUserTimeoutMs: config.askUserTimeoutMs,
    steering: config.steering ?? true,
    maxToolCalls:
      config.budget?.maxToolCalls !== undefined
        ? { limit: config.budget.maxToolCalls, scope: config.budget.scope ?? 'turn' }
        : undefined,
    toolContext,
    logger,
  });
  // A human's answer must arrive before the relay's fail-closed fallback: give hooks the ask-user time.
  const asksUser = flattenPolicies(policies).some((p) => p.decision === 'ask_user');
  const hookTimeoutMs = asksUser
    ? Math.max(
        config.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
        (config.askUserTimeoutMs ?? DEFAULT_ASK_USER_TIMEOUT_MS) + 5_000,
      )
    : config.hookTimeoutMs;
  checkBudget(config);
  const usage = new UsageLedger({
    table: config.pricing,
    billedModel: config.provider?.model,
    configModel: config.model,
  });
  const budget = config.budget ? new BudgetTracker(config.budget, (u) => usage.cost(u)) : undefined;
  const toolNames = servedToolNames(
    TOOL_SERVER_NAME,
    (config.tools ?? []).map((t) => t.name),
  );
  return { groups: validated, workspaces, schema, logger, control, hookTimeoutMs, budget, usage, toolNames };
}

/** The budget's own checks: a lifetime scope needs the conversation's start, a cost limit a known price. */
function checkBudget(config: AgentConfig): void {
  if (config.budget?.scope === 'lifetime' && config.conversationId !== undefined)
    throw new UnsupportedError(
      'budget.scope',
      "'lifetime' counts from the conversation's first step, and the SDK sees no spend from before this agent resumed it (agy reports none); use 'conversation' (from now on)",
    );
  if (config.budget?.maxCostUsd !== undefined) {
    const model = config.provider?.model ?? config.model;
    if (!priceOf(model, config.pricing))
      throw new ConfigError(
        'budget.maxCostUsd',
        `no price is known for model ${model ?? "(agy's default; set `model`)"}: add it to \`pricing\` (or a '*' entry)`,
      );
  }
}

/** The name agy sees for one of the agent's tools; `ConfigError` (field `tools`) for one it does not serve. */
export function servedNameOf(
  toolNames: ReadonlyMap<string, string>,
  tools: AgentConfig['tools'],
  tool: ToolDefinition | string,
): string {
  const name = typeof tool === 'string' ? tool : tool?.name;
  const served = typeof name === 'string' ? toolNames.get(name) : undefined;
  const own = typeof tool === 'string' || (tools ?? []).includes(tool);
  if (served === undefined || !own) {
    throw new ConfigError('tools', `${JSON.stringify(name)} is not one of this agent's tools`);
  }
  return served;
}

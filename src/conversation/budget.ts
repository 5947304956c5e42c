import type { Step, Usage } from '../model/step.js';
import type { BudgetName } from '../model/turn-result.js';

/** Limits for one turn (default) or the whole conversation. Every limit is optional. */
export interface BudgetConfig {
  /** Model calls: distinct `agent_response` steps. */
  maxModelCalls?: number;
  /** Tool calls: distinct `tool` steps. */
  maxToolCalls?: number;
  /** Input tokens, from every DONE step (checkpoints and subagents included). */
  maxInputTokens?: number;
  /** Output tokens (thinking included), from every DONE step (checkpoints and subagents included). */
  maxOutputTokens?: number;
  /** Input + output tokens, from every DONE step (checkpoints and subagents included). */
  maxTotalTokens?: number;
  /**
   * Cost in USD, from every DONE step's usage at the model's prices (`AgentConfig.pricing` over the built-in
   * table). The model must have a known price (else a `ConfigError` at construction); a step whose cost is
   * unknown (after a switch to an unpriced model) stops the turn, failing closed.
   */
  maxCostUsd?: number;
  /** Where the counts start (Python's `BudgetConfig.scope`, see {@link BudgetScope}). Default `turn`. */
  scope?: BudgetScope;
}

/**
 * Where a budget's counts start. `turn` (the default): each turn starts from zero. `conversation`: from when
 * the agent started, a resumed conversation's earlier spend not counted (Python's `BudgetScope.FORWARD_LOOKING`).
 * `lifetime`: from the conversation's first step (Python's `BudgetScope.LIFETIME`); the SDK sees no spend from
 * before it started, so `lifetime` is refused with `conversationId` (a resume) and is `conversation` otherwise.
 */
export type BudgetScope = 'turn' | 'conversation' | 'lifetime';

const NAMES: readonly BudgetName[] = [
  'maxModelCalls',
  'maxToolCalls',
  'maxInputTokens',
  'maxOutputTokens',
  'maxTotalTokens',
  'maxCostUsd',
];

/** Prices one step's usage in USD; `null` when unknown. */
export type StepPricer = (usage: Usage) => number | null;

/** Counts steps against a budget. */
export class BudgetTracker {
  readonly #config: BudgetConfig;
  #modelSteps = new Set<string>();
  #toolSteps = new Set<string>();
  #usageSteps = new Set<string>();
  #input = 0;
  #output = 0;
  #cost = 0;
  readonly #price: StepPricer | undefined;

  /** `price` prices each step for `maxCostUsd` (required for it to count). */
  constructor(config: BudgetConfig, price?: StepPricer) {
    this.#config = config;
    this.#price = price;
  }

  /** Starts a turn: resets the counts when the scope is the turn. */
  beginTurn(): void {
    if ((this.#config.scope ?? 'turn') !== 'turn') return;
    this.#modelSteps = new Set();
    this.#toolSteps = new Set();
    this.#usageSteps = new Set();
    this.#input = 0;
    this.#output = 0;
    this.#cost = 0;
  }

  /** Counts a step; returns the first budget it pushes over its limit, if any. */
  onStep(step: Step): { budget: BudgetName; limit: number; used: number } | undefined {
    const key = `${step.conversationId ?? ''}:${step.stepIndex}`;
    if (step.type === 'agent_response') this.#modelSteps.add(key);
    if (step.tool) this.#toolSteps.add(key);
    // Every DONE step's usage counts (1.1.x `checkpoint` steps carry usage too), subagents' included: a budget
    // bounds what the turn spends.
    if (step.state === 'DONE' && step.usage && !this.#usageSteps.has(key)) {
      this.#usageSteps.add(key);
      this.#input += step.usage.inputTokens;
      this.#output += step.usage.outputTokens;
      if (this.#config.maxCostUsd !== undefined) {
        // An unknown price fails closed: a cost budget that cannot be counted is spent.
        const cost = this.#price?.(step.usage) ?? null;
        this.#cost = cost === null ? Number.POSITIVE_INFINITY : this.#cost + cost;
      }
    }
    const used: Record<BudgetName, number> = {
      maxModelCalls: this.#modelSteps.size,
      maxToolCalls: this.#toolSteps.size,
      maxInputTokens: this.#input,
      maxOutputTokens: this.#output,
      maxTotalTokens: this.#input + this.#output,
      maxCostUsd: this.#cost,
    };
    for (const budget of NAMES) {
      const limit = this.#config[budget];
      if (limit !== undefined && used[budget] > limit) return { budget, limit, used: used[budget] };
    }
    return undefined;
  }
}

/**
 * `maxToolCalls` enforced at the gate, before a call runs (agy's PreToolUse and the own-tool gate): the call
 * past the budget is denied, so it never runs. The step counter above still ends the turn `budget_exceeded`.
 */
export class ToolCallGate {
  readonly #limit: number;
  readonly #scope: BudgetScope;
  #used = 0;

  constructor(limit: number, scope: BudgetScope = 'turn') {
    this.#limit = limit;
    this.#scope = scope;
  }

  /** Starts a turn: resets the count when the scope is the turn. */
  beginTurn(): void {
    if (this.#scope === 'turn') this.#used = 0;
  }

  /** Counts one call; returns the denial reason once the budget is spent. */
  spend(): string | undefined {
    this.#used++;
    if (this.#used <= this.#limit) return undefined;
    return `maxToolCalls budget (${this.#limit}) is spent`;
  }
}

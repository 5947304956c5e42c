/**
 * The one owner of usage above the backend. The backend measures a turn (its `TurnResult.usage`, `totalUsage`,
 * `subagentUsage`, as agy or the ACP agent reports them); the ledger prices each turn's result (its `pricing`
 * stage, the last of the turn) and sums what this agent spent: per model, per subagent, the last turn's, and
 * agy's cumulative total. The Conversation's usage getters and the budget's cost limit read it; nothing else
 * prices or sums.
 */
import {
  addPriced,
  cacheWritesOf,
  costAt,
  type ModelPrice,
  type PricingTable,
  priceOf,
  withCost,
} from '../model/pricing.js';
import type { Usage } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';
import type { TurnStage } from './stages.js';

/** The `usageByModel` key of turns whose model is unknown (agy's unnamed default model). */
export const UNKNOWN_MODEL = 'default';

/** How turns are priced. */
export interface UsagePricing {
  /** `AgentConfig.pricing`, over the built-in table. */
  table?: PricingTable | undefined;
  /** The provider's model in provider mode (what is billed), which wins over the backend's. */
  billedModel?: string | undefined;
  /** The configured model (`AgentConfig.model`), used while the backend has not named one. */
  configModel?: string | undefined;
}

/** Prices and sums one agent's usage. */
export class UsageLedger {
  readonly #pricing: UsagePricing | undefined;
  /** The backend's model, once a backend is attached (`ConnectionInfo.model`). */
  #backendModel: () => string | undefined = () => undefined;
  /** Models this agent's turns were priced at (a cumulative total over several has no single price). */
  readonly #pricedModels = new Set<string>();
  #total: Usage | null = null;
  #lastTurn: Usage | null = null;
  // Null-prototype records: keys are model and conversation ids, which must never reach Object.prototype.
  readonly #byModel: Record<string, Usage> = Object.create(null);
  readonly #bySubagent: Record<string, Usage> = Object.create(null);

  /** @param pricing How turns are priced; without it results are summed unpriced (as the backend gave them). */
  constructor(pricing?: UsagePricing) {
    this.#pricing = pricing;
  }

  /** Reads the backend's model from now on (its `info.model`), for turns not priced at the billed model. */
  attach(backend: { readonly info: { readonly model: string | undefined } }): void {
    this.#backendModel = () => backend.info.model;
  }

  /** The model usage is priced at: the provider's in provider mode, else the backend's, else the configured one. */
  get model(): string | undefined {
    const p = this.#pricing;
    return p?.billedModel ?? this.#backendModel() ?? p?.configModel;
  }

  /** What `usage` costs at the current model's price; `null` when unknown. */
  cost(usage: Usage): number | null {
    return costAt(this.#price(), usage);
  }

  /** What `usage` of `model` costs (the gateway's upstream requests); `null` when unknown. */
  costOf(model: string | undefined, usage: Usage): number | null {
    return costAt(priceOf(model, this.#pricing?.table), usage);
  }

  /** The pricing stage: every usage of the result gets its cost, and the result the model it was priced at. */
  stage(): TurnStage {
    return { name: 'cost', finish: (result) => this.#priced(result) };
  }

  /** Sums one finished turn's usage (any turn, priced or failed); the result is the caller's, so values are copied. */
  record(result: TurnResult): void {
    this.#lastTurn = copyUsage(result.usage);
    if (result.totalUsage) this.#total = copyUsage(result.totalUsage);
    if (result.usage) add(this.#byModel, result.model ?? UNKNOWN_MODEL, result.usage);
    for (const [id, usage] of Object.entries(result.subagentUsage ?? {})) add(this.#bySubagent, id, usage);
  }

  /** Forgets the last turn's usage (`clearHistory()`); the sums stay, as they count what was spent. */
  forgetLastTurn(): void {
    this.#lastTurn = null;
  }

  /** agy's cumulative usage of the whole conversation, from the last result that had it. */
  get total(): Usage | null {
    return copyUsage(this.#total);
  }

  /** The last finished turn's usage. */
  get lastTurn(): Usage | null {
    return copyUsage(this.#lastTurn);
  }

  /** This agent's turns' usage by model. */
  get byModel(): Record<string, Usage> {
    return copyUsages(this.#byModel);
  }

  /** Each subagent's usage over this agent's turns. */
  get bySubagent(): Record<string, Usage> {
    return copyUsages(this.#bySubagent);
  }

  #price(): ModelPrice | undefined {
    return priceOf(this.model, this.#pricing?.table);
  }

  #priced(result: TurnResult): TurnResult {
    const model = this.model;
    const price = this.#price();
    const priced = (usage: Usage): Usage => withCost(usage, costAt(price, usage));
    const out: TurnResult = { ...result };
    if (model !== undefined) {
      out.model = model;
      this.#pricedModels.add(model);
    }
    if (result.usage) out.usage = priced(result.usage);
    // Subagents run on the parent's model unless told otherwise; agy does not say which they used.
    if (result.subagentUsage)
      out.subagentUsage = Object.fromEntries(
        Object.entries(result.subagentUsage).map(([id, u]) => [id, priced(u)]),
      );
    // agy's cumulative total spans every process of the conversation: one price only if one model ran.
    if (result.totalUsage)
      out.totalUsage = withCost(
        result.totalUsage,
        this.#pricedModels.size <= 1 ? costAt(price, result.totalUsage) : null,
      );
    if (result.providerUsage) {
      const [only, ...more] = result.providerUsage.models;
      const cost = only !== undefined && more.length === 0 ? this.costOf(only, result.providerUsage) : null;
      out.providerUsage = {
        ...result.providerUsage,
        cacheWriteTokens: result.providerUsage.cacheWriteTokens ?? 0,
        costUsd: cost,
      };
    }
    return out;
  }
}

function add(into: Record<string, Usage>, key: string, usage: Usage): void {
  const sum = into[key];
  if (sum) addPriced(sum, usage);
  else into[key] = { ...usage, cacheWriteTokens: cacheWritesOf(usage) };
}

/** A copy of a usage value (flat numbers), so what a caller receives is never the ledger's own. */
function copyUsage(usage: Usage | null): Usage | null {
  return usage === null ? null : { ...usage };
}

/** A copy of a usage record (null prototype, as the keys are ids), each value copied. */
function copyUsages(record: Record<string, Usage>): Record<string, Usage> {
  const out: Record<string, Usage> = Object.create(null);
  for (const [key, usage] of Object.entries(record)) out[key] = { ...usage };
  return out;
}

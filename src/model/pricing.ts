/**
 * Prices and cost. One data file (`prices.json`: USD per million tokens, with its sources and date) gives the
 * defaults; `AgentConfig.pricing` overrides or extends it. A cost is `null` whenever any price it needs is
 * unknown: an unknown model is never free (docs/reference/observability.md#prices).
 */

import data from './prices.json' with { type: 'json' };
import type { Usage } from './step.js';
import { addCount, addUsage } from './usage.js';

/** Prices of one model, in USD per million tokens. */
export interface ModelPrice {
  /** Input (prompt) tokens, cache reads excluded. */
  input: number;
  /** Output tokens, thinking included (thinking is billed as output). */
  output: number;
  /** Tokens read from the prompt cache; needed only when a usage has cache reads. */
  cacheRead?: number | undefined;
  /** Tokens written to the prompt cache; needed only when a usage has cache writes. */
  cacheWrite?: number | undefined;
}

/**
 * `AgentConfig.pricing`: model id → its prices, over the built-in table. The key `'*'` prices any model the
 * table does not know (e.g. agy's unnamed default model).
 */
export type PricingTable = Readonly<Record<string, ModelPrice>>;

/** The built-in price table: where the prices come from, when they were read, and the prices. */
export interface DefaultPrices {
  /** The day the prices were read (ISO date). */
  readonly date: string;
  /** Where they were read. */
  readonly sources: readonly string[];
  /** Model id → prices. */
  readonly models: PricingTable;
}

/** The built-in price table (`src/model/prices.json`). */
export const defaultPrices: DefaultPrices = Object.freeze({
  date: data.date,
  sources: Object.freeze([...data.sources]),
  models: Object.freeze(data.models as Record<string, ModelPrice>),
});

/** A dated snapshot suffix (`claude-sonnet-4-20250514`) or `-latest`: the same model, the same price. */
const SNAPSHOT = /-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/** The prices of `model`: the user's table first, then the built-in one, then the user's `'*'`; else undefined. */
export function priceOf(model: string | undefined, pricing?: PricingTable): ModelPrice | undefined {
  if (model !== undefined) {
    for (const id of SNAPSHOT.test(model) ? [model, model.replace(SNAPSHOT, '')] : [model]) {
      const own = pricing !== undefined && Object.hasOwn(pricing, id) ? pricing[id] : undefined;
      if (own) return own;
      if (Object.hasOwn(defaultPrices.models, id)) return defaultPrices.models[id];
    }
  }
  return pricing !== undefined && Object.hasOwn(pricing, '*') ? pricing['*'] : undefined;
}

/** The cost of `usage` at `price`, in USD; `null` when a price it needs is missing. */
export function costAt(price: ModelPrice | undefined, usage: Usage): number | null {
  if (!price) return null;
  // Unreported cache reads (null, e.g. on ACP) cannot be billed apart from the input count.
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  if (cacheRead > 0 && price.cacheRead === undefined) return null;
  if (cacheWrite > 0 && price.cacheWrite === undefined) return null;
  const micro =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    cacheRead * (price.cacheRead ?? 0) +
    cacheWrite * (price.cacheWrite ?? 0);
  return micro / 1_000_000;
}

/** A copy of `usage` carrying its cost (`null` when unknown) and an explicit cache-write count. */
export function withCost(usage: Usage, cost: number | null): Usage {
  return { ...usage, cacheWriteTokens: cacheWritesOf(usage), costUsd: cost };
}

/**
 * The cache-write count a priced value shows: the reported one, else 0 where the backend reports cache counts
 * (agy writes none), else `null` (a backend with no cache counts at all, e.g. ACP): never a made-up 0.
 */
export function cacheWritesOf(usage: Usage): number | null {
  return usage.cacheWriteTokens ?? (usage.cacheReadTokens === null ? null : 0);
}

/**
 * Adds `b` into `a` (in place), costs included: the sum's cost is `null` as soon as one part's is (an unknown
 * part makes the whole unknown), and `undefined` only when neither side was priced.
 */
export function addPriced(a: Usage, b: Usage): Usage {
  addUsage(a, b);
  a.cacheWriteTokens = addCount(cacheWritesOf(a), cacheWritesOf(b));
  if (a.costUsd === null || b.costUsd === null) a.costUsd = null;
  else if (b.costUsd !== undefined) a.costUsd = (a.costUsd ?? 0) + b.costUsd;
  return a;
}

/**
 * Provider mode: agy on any model provider. agy speaks only Gemini, but with `modelProvider: "gemini"` in its
 * settings plus `GEMINI_API_KEY` and `GOOGLE_GEMINI_BASE_URL` it talks to any Gemini-compatible endpoint
 * (docs/reference/gemini-api.md#agy-as-a-gemini-client). The bridge runs an in-process gateway pinned to the provider's model and
 * hands the Agent the environment and settings that point agy at it. The upstream key stays in this process:
 * agy only ever sees the gateway's per-run token.
 */
import { ConfigError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { UpstreamKind, UpstreamObserver } from '../model/upstream-trace.js';
import type { ProviderUsage } from '../model/usage.js';
import { createGateway } from './gateway.js';
import { usageFromGemini } from './gemini-usage.js';
import type { Gateway, GatewayUsageReport } from './options.js';

export type { ProviderUsage } from '../model/usage.js';

/** `AgentConfig.provider`: the upstream agy's model calls go to, through the gateway. */
export interface ProviderConfig {
  /** The upstream's protocol. */
  kind: UpstreamKind;
  /** Base URL in the vendor SDK's convention: OpenAI kinds include `/v1`, Anthropic does not. */
  baseUrl: string;
  /** The upstream API key. Never reaches agy's environment, argv or any file. */
  apiKey: string;
  /** The upstream model every request goes to (auxiliary and title calls included). Never passed to `--model`. */
  model: string;
  /** Extra headers for every upstream request. */
  headers?: Record<string, string>;
}

/** A running bridge: one gateway for one Agent. */
export interface ProviderBridge {
  /** What agy's environment must carry: the gateway's URL and per-run token, never the upstream key. */
  readonly env: Readonly<Record<'GEMINI_API_KEY' | 'GOOGLE_GEMINI_BASE_URL', string>>;
  /** Merged into the shadow HOME's agy settings. */
  readonly settingsOverrides: Readonly<Record<string, unknown>>;
  /** Starts counting a turn's upstream usage. */
  beginTurn(): void;
  /** The upstream usage since `beginTurn()`, or null when no request finished. */
  endTurn(): ProviderUsage | null;
  /** Stops the gateway; afterwards nothing listens. Idempotent. */
  close(): Promise<void>;
}

/** Checks `provider` up front, naming the field, so a bad config fails at construction. */
export function validateProvider(provider: unknown): asserts provider is ProviderConfig {
  if (typeof provider !== 'object' || provider === null)
    throw new ConfigError('provider', 'must be an object');
  const p = provider as Record<string, unknown>;
  for (const key of ['kind', 'baseUrl', 'apiKey', 'model'] as const) {
    if (typeof p[key] !== 'string' || p[key] === '')
      throw new ConfigError(`provider.${key}`, 'must be a non-empty string');
  }
}

/** Starts the gateway for `provider`; on failure nothing is left listening. */
export async function startProviderBridge(
  provider: ProviderConfig,
  logger?: Logger,
  upstreamObserver?: UpstreamObserver,
): Promise<ProviderBridge> {
  validateProvider(provider);
  let turn: ProviderUsage | null = null;
  let counting = false;
  const onUsage = (report: GatewayUsageReport): void => {
    if (!counting) return;
    const u = usageFromGemini(report.usage);
    turn ??= {
      inputTokens: 0,
      outputTokens: 0,
      thinkingTokens: 0,
      cacheReadTokens: 0,
      totalTokens: 0,
      requests: 0,
      models: [],
    };
    turn.inputTokens += u.inputTokens;
    turn.outputTokens += u.outputTokens;
    turn.thinkingTokens += u.thinkingTokens ?? 0;
    turn.cacheReadTokens += u.cacheReadTokens ?? 0;
    turn.totalTokens += u.totalTokens;
    turn.requests += 1;
    if (!turn.models.includes(report.upstreamModel)) turn.models.push(report.upstreamModel);
  };
  const gateway: Gateway = await createGateway({
    upstream: {
      kind: provider.kind,
      baseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
      ...(provider.headers && { headers: provider.headers }),
    },
    modelMap: { '*': provider.model },
    ...(logger && { logger }),
    ...(upstreamObserver && { upstreamObserver }),
    onUsage,
  });
  return {
    env: { GEMINI_API_KEY: gateway.token, GOOGLE_GEMINI_BASE_URL: gateway.url },
    settingsOverrides: { modelProvider: 'gemini' },
    beginTurn() {
      turn = null;
      counting = true;
    },
    endTurn() {
      counting = false;
      return turn;
    },
    close: () => gateway.close(),
  };
}
